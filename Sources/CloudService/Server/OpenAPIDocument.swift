/// GET /openapi.json: the API as OpenAPI 3.1 (Docs/http.md is its prose). Tests hold it to the
/// routes the server registers and to what they answer (OpenAPIDocumentTests), and
/// Tools/schemathesis/run sends it generated requests.
///
/// It is kept as the JSON it is served as, so a reader sees exactly what clients get; what
/// repeats (errors, the capture id, the filter parameters) lives once under `components`.
/// Every error is `application/problem+json`; a 405 (a known path asked with another method,
/// with `Allow`) can belong to no operation, so it is only in `components.responses`.
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "cloudgen",
            "version": "1",
            "summary": "Point clouds from RGB-D frames: upload, capture, list, export.",
            "description": "Every error is an RFC 9457 application/problem+json document whose `field` names the form part, JSON key or query parameter at fault. HEAD is answered wherever GET is, without the body. A path that exists for other methods answers 405 with `Allow` (components.responses.MethodNotAllowed); any other unknown path answers 404. When the server runs with --token-file, every route but /healthz, / and /openapi.json needs `Authorization: Bearer TOKEN` and answers 401 without it. On every route, a Host that is not one of the server's names answers 421, and a change (POST, PATCH, DELETE) from a foreign page's Origin, or any request marked Sec-Fetch-Site: cross-site, answers 403 (Docs/http.md, Browsers). A request may ask for at most 16 filter steps, held to the server's CPU and memory shares (422). Docs/http.md describes the API in prose."
          },
          "security": [{}, {"bearer": []}],
          "paths": {
            "/healthz": {
              "get": {
                "operationId": "health",
                "summary": "Liveness: answers while the server runs (no token needed).",
                "security": [{}],
                "responses": {
                  "200": {
                    "description": "The server is up.",
                    "content": {"application/json": {"schema": {
                      "type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}
                    }}}
                  }
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "metrics",
                "summary": "Prometheus text: requests by route and status, latency, captures stored, jobs, worker pools' load, bytes written.",
                "responses": {
                  "200": {"description": "Prometheus exposition format 0.0.4.", "content": {"text/plain": {"schema": {"type": "string"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "responses": {
                  "200": {"description": "OpenAPI 3.1.", "content": {"application/json": {"schema": {"type": "object", "required": ["openapi", "paths"]}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/": {
              "get": {
                "operationId": "page",
                "summary": "The captures page: previews, an orbit slider, downloads, an upload form.",
                "responses": {
                  "200": {"description": "One HTML page, no external assets.", "content": {"text/html": {"schema": {"type": "string"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/v1/devices": {
              "get": {
                "operationId": "listDevices",
                "summary": "Depth cameras on this machine's USB, as `cloudgen devices --json`.",
                "responses": {
                  "200": {"description": "The cameras found.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeviceReport"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/captures": {
              "post": {
                "operationId": "createCapture",
                "summary": "Capture: an uploaded frame (201), an uploaded archive (202, a job), or a server-side source as JSON (201).",
                "requestBody": {
                  "required": true,
                  "content": {
                    "multipart/form-data": {
                      "schema": {"$ref": "#/components/schemas/CaptureUpload"},
                      "encoding": {
                        "depth": {"contentType": "image/png, image/tiff, image/x-portable-graymap, application/octet-stream"},
                        "color": {"contentType": "image/png, image/jpeg, image/tiff, application/octet-stream"},
                        "intrinsics": {"contentType": "application/json, application/xml, application/octet-stream"},
                        "bundle": {"contentType": "application/zip, application/x-tar, application/octet-stream"},
                        "photo": {"contentType": "image/heic, image/jpeg, application/octet-stream"}
                      }
                    },
                    "application/json": {"schema": {"$ref": "#/components/schemas/CaptureRequest"}}
                  }
                },
                "responses": {
                  "201": {
                    "description": "The capture is stored; its document.",
                    "headers": {"Location": {"$ref": "#/components/headers/CaptureLocation"}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Capture"}}},
                    "links": {
                      "GetCapture": {"operationId": "getCapture", "parameters": {"id": "$response.body#/id"}},
                      "DownloadPLY": {"operationId": "downloadPLY", "parameters": {"id": "$response.body#/id"}},
                      "Preview": {"operationId": "preview", "parameters": {"id": "$response.body#/id"}},
                      "MeasureRoom": {"operationId": "measureRoom", "parameters": {"id": "$response.body#/id"}},
                      "DeleteCapture": {"operationId": "deleteCapture", "parameters": {"id": "$response.body#/id"}}
                    }
                  },
                  "202": {
                    "description": "An uploaded archive: a job captures from it (GET /v1/jobs/{id}).",
                    "headers": {"Location": {"description": "/v1/jobs/{id}", "schema": {"type": "string"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}},
                    "links": {"GetJob": {"operationId": "getJob", "parameters": {"id": "$response.body#/id"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/Unprocessable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              },
              "get": {
                "operationId": "listCaptures",
                "summary": "Stored captures, newest first, a page at a time.",
                "parameters": [
                  {"name": "limit", "in": "query", "description": "Captures per page (default 20).", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                  {"name": "after", "in": "query", "description": "The last id of the previous page (take `next` as it is).", "schema": {"$ref": "#/components/schemas/CaptureID"}},
                  {"name": "sort", "in": "query", "description": "The order: created or -created (newest first, the default), name or -name (unnamed as the empty name, case-insensitive), points or -points; ties by id.",
                   "schema": {"enum": ["created", "-created", "name", "-name", "points", "-points"]}},
                  {"name": "q", "in": "query", "description": "Only captures whose name, note, source or uploaded file names contain this text (case-insensitive).", "schema": {"type": "string", "maxLength": 200}},
                  {"name": "tag", "in": "query", "description": "Only captures carrying this tag; repeated, all of them.", "explode": true,
                   "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}, "maxItems": 20}}
                ],
                "responses": {
                  "200": {"description": "One page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CaptureList"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/v1/captures/{id}": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "getCapture",
                "summary": "One capture's document.",
                "responses": {
                  "200": {
                    "description": "The document POST answered.",
                    "headers": {"ETag": {"schema": {"type": "string"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Capture"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              },
              "patch": {
                "operationId": "labelCapture",
                "summary": "Changes the capture's name, tags or note: a JSON merge patch (a key left out stays, null clears it).",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/merge-patch+json": {"schema": {"$ref": "#/components/schemas/CaptureLabels"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/CaptureLabels"}}
                  }
                },
                "responses": {
                  "200": {
                    "description": "The capture's document with the new labels.",
                    "headers": {"ETag": {"schema": {"type": "string"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Capture"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/Unprocessable"}
                }
              },
              "delete": {
                "operationId": "deleteCapture",
                "summary": "Removes the capture: its row, then its files.",
                "responses": {
                  "204": {"description": "Gone."},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/captures/{id}/cloud.ply": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "downloadPLY",
                "summary": "The cloud as PLY; with filters, a filtered copy (made once, then kept).",
                "parameters": [
                  {"name": "encoding", "in": "query", "description": "PLY encoding (default binary). Its older name, format, is still taken.", "schema": {"enum": ["binary", "ascii"]}},
                  {"$ref": "#/components/parameters/Voxel"}, {"$ref": "#/components/parameters/Crop"},
                  {"$ref": "#/components/parameters/SOR"}, {"$ref": "#/components/parameters/Radius"},
                  {"$ref": "#/components/parameters/Normals"},
                  {"$ref": "#/components/parameters/Range"}, {"$ref": "#/components/parameters/IfNoneMatch"}
                ],
                "responses": {
                  "200": {"$ref": "#/components/responses/PLY"},
                  "206": {"$ref": "#/components/responses/PartialPLY"},
                  "304": {"$ref": "#/components/responses/NotModified"},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "416": {"$ref": "#/components/responses/RangeNotSatisfiable"},
                  "422": {"$ref": "#/components/responses/Unprocessable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/captures/{id}/cloud.pcd": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "downloadPCD",
                "summary": "The cloud as PCD; with filters, a filtered copy (made once, then kept).",
                "parameters": [
                  {"name": "encoding", "in": "query", "description": "PCD encoding (default binary). Its older name, format, is still taken.", "schema": {"enum": ["binary", "ascii", "binary_compressed"]}},
                  {"$ref": "#/components/parameters/Voxel"}, {"$ref": "#/components/parameters/Crop"},
                  {"$ref": "#/components/parameters/SOR"}, {"$ref": "#/components/parameters/Radius"},
                  {"$ref": "#/components/parameters/Normals"},
                  {"$ref": "#/components/parameters/Range"}, {"$ref": "#/components/parameters/IfNoneMatch"}
                ],
                "responses": {
                  "200": {"description": "The PCD file.", "headers": {"ETag": {"schema": {"type": "string"}}, "Content-Length": {"schema": {"type": "integer"}}, "Content-Disposition": {"$ref": "#/components/headers/Attachment"}},
                          "content": {"application/x-pcd": {"schema": {"type": "string", "format": "binary"}}}},
                  "206": {"$ref": "#/components/responses/PartialPCD"},
                  "304": {"$ref": "#/components/responses/NotModified"},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "416": {"$ref": "#/components/responses/RangeNotSatisfiable"},
                  "422": {"$ref": "#/components/responses/Unprocessable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/captures/{id}/preview.png": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "preview",
                "summary": "The cloud rendered from an orbit around it (made once per view, then kept).",
                "parameters": [
                  {"name": "azimuth", "in": "query", "description": "Degrees around the vertical axis, from the camera's view (default 0).", "schema": {"type": "number", "minimum": -360, "maximum": 360}},
                  {"name": "elevation", "in": "query", "description": "Degrees above (+) or below (-) the camera's view (default 0).", "schema": {"type": "number", "minimum": -90, "maximum": 90}},
                  {"name": "width", "in": "query", "description": "Pixels (default 640).", "schema": {"type": "integer", "minimum": 16, "maximum": 4096}},
                  {"name": "height", "in": "query", "description": "Pixels (default 480).", "schema": {"type": "integer", "minimum": 16, "maximum": 4096}},
                  {"$ref": "#/components/parameters/Range"}, {"$ref": "#/components/parameters/IfNoneMatch"}
                ],
                "responses": {
                  "200": {"$ref": "#/components/responses/PNG"},
                  "206": {"$ref": "#/components/responses/PartialPNG"},
                  "304": {"$ref": "#/components/responses/NotModified"},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "416": {"$ref": "#/components/responses/RangeNotSatisfiable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/captures/{id}/depth.png": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "depthImage",
                "summary": "The depth map in the JET colormap, as stored with the capture.",
                "parameters": [{"$ref": "#/components/parameters/Range"}, {"$ref": "#/components/parameters/IfNoneMatch"}],
                "responses": {
                  "200": {"$ref": "#/components/responses/PNG"},
                  "206": {"$ref": "#/components/responses/PartialPNG"},
                  "304": {"$ref": "#/components/responses/NotModified"},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "416": {"$ref": "#/components/responses/RangeNotSatisfiable"}
                }
              }
            },
            "/v1/captures/{id}/capture.zip": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "downloadZip",
                "summary": "The whole capture as one zip (members stored uncompressed) in a folder named after it: capture.json (its document), cloud.ply, preview.png (the default view) and depth.png. Uploaded inputs are not kept by the store, so not included.",
                "responses": {
                  "200": {"description": "The archive.",
                          "headers": {"Content-Length": {"schema": {"type": "integer"}}, "Content-Disposition": {"$ref": "#/components/headers/Attachment"}},
                          "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/captures/{id}/measure": {
              "parameters": [{"$ref": "#/components/parameters/CaptureIDPath"}],
              "get": {
                "operationId": "measureRoom",
                "summary": "The room measured from the capture's cloud, as `cloudgen measure --json` (schema cloudgen.measure/1, Docs/measure.md).",
                "parameters": [
                  {"name": "up", "in": "query", "description": "Up in the cloud's frame: auto (from the room's level planes) or an axis.",
                   "schema": {"type": "string", "enum": ["auto", "x", "y", "z", "-x", "-y", "-z"], "default": "auto"}},
                  {"name": "leaf", "in": "query", "description": "Voxel leaf the planes are fitted on, metres.",
                   "schema": {"type": "number", "minimum": 0.005, "maximum": 0.2, "default": 0.03}},
                  {"$ref": "#/components/parameters/IfNoneMatch"}
                ],
                "responses": {
                  "200": {"description": "The measurement.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RoomMeasurement"}}}},
                  "304": {"$ref": "#/components/responses/NotModified"},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "422": {"$ref": "#/components/responses/Unprocessable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            },
            "/v1/jobs": {
              "get": {
                "operationId": "listJobs",
                "summary": "Archive jobs, newest first, a page at a time, optionally only those in some states.",
                "parameters": [
                  {"name": "limit", "in": "query", "description": "Jobs per page (default 20).", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                  {"name": "after", "in": "query", "description": "The last id of the previous page (take `next` as it is).", "schema": {"$ref": "#/components/schemas/JobID"}},
                  {"name": "state", "in": "query", "description": "Only jobs in this state; repeated, in any of them.", "explode": true,
                   "schema": {"type": "array", "items": {"enum": ["queued", "running", "succeeded", "failed"]}}}
                ],
                "responses": {
                  "200": {"description": "One page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JobList"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/v1/jobs/{id}": {
              "parameters": [{"$ref": "#/components/parameters/JobIDPath"}],
              "get": {
                "operationId": "getJob",
                "summary": "An archive job: its state, frames done of total, its capture or its problem.",
                "responses": {
                  "200": {"description": "The job.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/jobs/{id}/events": {
              "parameters": [{"$ref": "#/components/parameters/JobIDPath"}],
              "get": {
                "operationId": "jobEvents",
                "summary": "Server-sent events: `event: state` with the job's JSON as `data`, the current state first, one per change; the stream ends after `succeeded` or `failed`.",
                "responses": {
                  "200": {
                    "description": "An event stream; the schema is one event's.",
                    "content": {"text/event-stream": {"schema": {
                      "type": "object",
                      "required": ["event", "data"],
                      "properties": {
                        "event": {"const": "state"},
                        "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": {"$ref": "#/components/schemas/Job"}}
                      }
                    }}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/convert": {
              "post": {
                "operationId": "convert",
                "summary": "The `convert` command over HTTP: a PLY or PCD in, converted and filtered out; nothing is stored.",
                "requestBody": {
                  "required": true,
                  "content": {
                    "multipart/form-data": {
                      "schema": {"$ref": "#/components/schemas/ConvertUpload"},
                      "encoding": {"cloud": {"contentType": "application/x-ply, application/x-pcd, application/octet-stream"}}
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The converted file, as an attachment.",
                    "headers": {"Content-Disposition": {"schema": {"type": "string"}}, "Content-Length": {"schema": {"type": "integer"}}},
                    "content": {
                      "application/x-ply": {"schema": {"type": "string", "format": "binary"}},
                      "application/x-pcd": {"schema": {"type": "string", "format": "binary"}}
                    }
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
                  "422": {"$ref": "#/components/responses/Unprocessable"},
                  "503": {"$ref": "#/components/responses/Busy"}
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearer": {"type": "http", "scheme": "bearer", "description": "The first line of the server's --token-file."}
            },
            "parameters": {
              "CaptureIDPath": {"name": "id", "in": "path", "required": true, "description": "A capture id, as the server made it.", "schema": {"$ref": "#/components/schemas/CaptureID"}},
              "JobIDPath": {"name": "id", "in": "path", "required": true, "description": "A job id, as the server made it.", "schema": {"$ref": "#/components/schemas/JobID"}},
              "Voxel": {"name": "voxel", "in": "query", "description": "VoxelGrid leaf size in metres, e.g. 0.01.", "schema": {"type": "number", "exclusiveMinimum": 0}},
              "Crop": {"name": "crop", "in": "query", "description": "CropBox X0,Y0,Z0,X1,Y1,Z1 in metres, e.g. -1,-1,0,1,1,3.", "schema": {"$ref": "#/components/schemas/CropBox"}},
              "SOR": {"name": "sor", "in": "query", "description": "StatisticalOutlierRemoval K,STDDEV, e.g. 20,2.", "schema": {"$ref": "#/components/schemas/SOR"}},
              "Radius": {"name": "radius", "in": "query", "description": "RadiusOutlierRemoval R,MIN, e.g. 0.05,5.", "schema": {"$ref": "#/components/schemas/RadiusOutliers"}},
              "Normals": {"name": "normals", "in": "query", "description": "Normals and curvature within RADIUS metres; empty for 0.05.", "allowEmptyValue": true, "schema": {"type": "string", "pattern": "^$|^[0-9]*\\.?[0-9]+$"}},
              "Range": {"name": "Range", "in": "header", "description": "One byte range, bytes=A-B, bytes=A- or bytes=-N (206 or 416).", "schema": {"type": "string"}},
              "IfNoneMatch": {"name": "If-None-Match", "in": "header", "description": "An ETag this route gave: 304 if it still names the bytes.", "schema": {"type": "string"}}
            },
            "headers": {
              "CaptureLocation": {"description": "/v1/captures/{id}", "schema": {"type": "string"}},
              "Attachment": {"description": "attachment; filename=\"NAME\"; filename*=UTF-8''NAME: the capture's name (or id) and the variant, e.g. kitchen-voxel0.01.pcd.", "schema": {"type": "string"}},
              "RetryAfter": {"description": "Seconds to wait before trying again.", "schema": {"type": "integer"}}
            },
            "responses": {
              "BadRequest": {"description": "A malformed request: a missing or unknown part, field or parameter (named by `field`), a malformed body.",
                             "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "Unauthorized": {"description": "The server has a token and the request did not carry it as `Authorization: Bearer TOKEN`.",
                               "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
                               "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "Forbidden": {"description": "A JSON capture names a folder outside the server's --allow-dir folders.",
                            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "NotFound": {"description": "No such capture or job (or no such path).",
                           "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "MethodNotAllowed": {"description": "The path exists for other methods, listed in Allow.",
                                   "headers": {"Allow": {"schema": {"type": "string"}}},
                                   "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "TooLarge": {"description": "The body is larger than the server's --max-upload-mb; nothing of it is kept.",
                           "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "UnsupportedMediaType": {"description": "The body is not of a media type the route takes.",
                                       "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "RangeNotSatisfiable": {"description": "The byte range lies outside the file.",
                                      "headers": {"Content-Range": {"schema": {"type": "string"}}},
                                      "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "Unprocessable": {"description": "Well-formed but unusable input: a bad image, calibration or cloud, a filter value out of range, a filter that keeps no points. `field` names it.",
                                "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "Busy": {"description": "The worker pool's queue is full; try again after Retry-After seconds.",
                       "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}},
                       "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "NotModified": {"description": "If-None-Match named the file's ETag."},
              "PartialPLY": {"description": "The byte range asked for, of the PLY file.", "headers": {"Content-Range": {"schema": {"type": "string"}}},
                             "content": {"application/x-ply": {"schema": {"type": "string", "format": "binary"}}}},
              "PartialPCD": {"description": "The byte range asked for, of the PCD file.", "headers": {"Content-Range": {"schema": {"type": "string"}}},
                             "content": {"application/x-pcd": {"schema": {"type": "string", "format": "binary"}}}},
              "PartialPNG": {"description": "The byte range asked for, of the PNG.", "headers": {"Content-Range": {"schema": {"type": "string"}}},
                             "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}},
              "PLY": {"description": "The PLY file.", "headers": {"ETag": {"schema": {"type": "string"}}, "Content-Length": {"schema": {"type": "integer"}}, "Content-Disposition": {"$ref": "#/components/headers/Attachment"}},
                      "content": {"application/x-ply": {"schema": {"type": "string", "format": "binary"}}}},
              "PNG": {"description": "A PNG image.", "headers": {"ETag": {"schema": {"type": "string"}}, "Content-Length": {"schema": {"type": "integer"}}, "Content-Disposition": {"$ref": "#/components/headers/Attachment"}},
                      "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}}
            },
            "schemas": {
              "RoomMeasurement": {
                "type": "object",
                "description": "Docs/measure.md describes every key; numbers not seen are null with their reason in `reasons`.",
                "required": ["schema", "source", "units", "points", "up", "frame", "floor", "ceiling", "height", "outline", "area", "perimeter",
                             "corners", "extents", "walls", "clutter", "cameras", "reasons", "warnings"],
                "properties": {
                  "schema": {"type": "string", "const": "cloudgen.measure/1"},
                  "outline": {"type": "string", "enum": ["closed", "open"]},
                  "height": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Measured"}]},
                  "area": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Measured"}]},
                  "perimeter": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Measured"}]},
                  "walls": {"type": "array", "items": {"type": "object"}},
                  "reasons": {"type": "object", "additionalProperties": {"type": "string"}}
                }
              },
              "Measured": {
                "type": "object",
                "required": ["value", "sigma"],
                "properties": {"value": {"type": "number"}, "sigma": {"type": "number", "minimum": 0}}
              },
              "Problem": {
                "type": "object",
                "description": "RFC 9457 problem details.",
                "required": ["type", "title", "status", "detail", "instance"],
                "properties": {
                  "type": {"type": "string"},
                  "title": {"type": "string"},
                  "status": {"type": "integer", "minimum": 400, "maximum": 599},
                  "detail": {"type": "string"},
                  "instance": {"type": "string", "description": "The request's path."},
                  "field": {"type": "string", "description": "The form part, JSON key or query parameter at fault."},
                  "part": {"type": "string", "description": "The uploaded file part whose content is at fault (a corrupt depth image); its field too."}
                }
              },
              "CaptureID": {"type": "string", "description": "26 lowercase Crockford base-32 characters, made by the server; they sort by creation time.",
                            "pattern": "^[0-9a-hjkmnp-tv-z]{26}$"},
              "JobID": {"type": "string", "description": "A job's id: the same shape as a capture's.", "pattern": "^[0-9a-hjkmnp-tv-z]{26}$"},
              "Tag": {"type": "string", "minLength": 1, "maxLength": 40, "pattern": "^[A-Za-z0-9._:-]+$", "description": "Letters, digits, '-', '_', '.' or ':' (letters and digits of other scripts are taken too)."},
              "CaptureLabels": {
                "type": "object",
                "description": "A capture's name, tags and note. In a PATCH, a key left out keeps its value and null clears it.",
                "additionalProperties": false,
                "properties": {
                  "name": {"type": ["string", "null"], "maxLength": 120, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$", "description": "No control characters; empty or null for none."},
                  "tags": {"oneOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}, "maxItems": 20}]},
                  "note": {"type": ["string", "null"], "maxLength": 2000, "pattern": "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$", "description": "Free text; tabs and line breaks allowed."}
                }
              },
              "JobList": {
                "type": "object",
                "required": ["jobs", "next"],
                "properties": {
                  "jobs": {"type": "array", "items": {"$ref": "#/components/schemas/Job"}},
                  "next": {"type": ["string", "null"], "description": "The next page's URL, null on the last page."}
                }
              },
              "KnownDistance": {"type": "string", "pattern": "^[0-9]+,[0-9]+=[0-9.eE+-]+$",
                                "description": "X,Y=METRES: a pixel of the photo (as shown) and its true distance, which scales the photo's relative depth to metres, e.g. 1512,2016=0.6."},
              "CropBox": {"type": "string", "pattern": "^-?[0-9.]+(,-?[0-9.]+){5}$"},
              "SOR": {"type": "string", "pattern": "^[0-9]+,[0-9.]+$"},
              "RadiusOutliers": {"type": "string", "pattern": "^[0-9.]+,[0-9]+$"},
              "Vector3": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
              "Intrinsics": {
                "type": "object",
                "description": "A pinhole camera model: focal lengths and principal point in pixels of a width x height image.",
                "required": ["fx", "fy", "cx", "cy", "width", "height"],
                "properties": {
                  "fx": {"type": "number"}, "fy": {"type": "number"}, "cx": {"type": "number"}, "cy": {"type": "number"},
                  "width": {"type": "integer", "minimum": 1}, "height": {"type": "integer", "minimum": 1}
                }
              },
              "Capture": {
                "type": "object",
                "description": "`capture --json`'s report without the server's file paths, plus the id, creation time, the cloud's size and bounds and links to its files.",
                "required": ["id", "created", "source", "name", "tags", "note", "files", "points", "bytes", "bounds", "warnings", "links", "frame", "frames", "fused", "camera", "range", "counts", "filters", "timings", "totalMilliseconds"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/CaptureID"},
                  "created": {"type": "string", "format": "date-time"},
                  "source": {"type": "string", "description": "The source spec, with uploaded files named by their part (rgbd:color,depth)."},
                  "name": {"type": ["string", "null"], "description": "The capture's name (set at upload or with PATCH), null for none."},
                  "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                  "note": {"type": ["string", "null"]},
                  "files": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Each uploaded part's file name as the client sent it (depth: kitchen_depth.png); empty for a capture on the server's side."},
                  "points": {"type": "integer", "minimum": 0},
                  "bytes": {"type": "integer", "minimum": 0, "description": "Size of the stored binary PLY."},
                  "bounds": {
                    "oneOf": [
                      {"type": "null"},
                      {"type": "object", "required": ["min", "max"], "properties": {"min": {"$ref": "#/components/schemas/Vector3"}, "max": {"$ref": "#/components/schemas/Vector3"}}}
                    ],
                    "description": "Axis-aligned box of the finite points in metres; null without any."
                  },
                  "warnings": {"type": "array", "items": {"type": "string"}},
                  "links": {
                    "type": "object",
                    "required": ["self", "cloud_ply", "cloud_pcd", "preview", "depth", "zip"],
                    "properties": {
                      "self": {"type": "string"}, "cloud_ply": {"type": "string"}, "cloud_pcd": {"type": "string"},
                      "preview": {"type": "string"}, "depth": {"type": "string"}, "zip": {"type": "string"}
                    }
                  },
                  "frame": {"enum": ["camera", "world"]},
                  "frames": {"type": "integer", "minimum": 1},
                  "fused": {"type": "boolean"},
                  "camera": {
                    "type": "object",
                    "required": ["reference", "depth", "color", "depthFormat", "depthAccuracy", "metric", "distortionCorrected", "depthUnitsPerMetre", "colorFormat"],
                    "properties": {
                      "reference": {"$ref": "#/components/schemas/Intrinsics"},
                      "depth": {"$ref": "#/components/schemas/Intrinsics"},
                      "color": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Intrinsics"}]},
                      "depthFormat": {"type": "string"},
                      "depthAccuracy": {"enum": ["absolute", "relative"]},
                      "metric": {"type": "boolean"},
                      "distortionCorrected": {"type": "boolean"},
                      "depthUnitsPerMetre": {"type": ["number", "null"]},
                      "colorFormat": {"type": ["string", "null"]}
                    }
                  },
                  "range": {
                    "oneOf": [
                      {"type": "null"},
                      {"type": "object", "required": ["min", "max"], "properties": {"min": {"type": ["number", "string"]}, "max": {"type": ["number", "string"]}}}
                    ],
                    "description": "The depth limits applied in metres (an unbounded one as \"inf\"); null without limits."
                  },
                  "counts": {
                    "type": "object",
                    "description": "Depth pixels, those with a valid depth, those the range dropped, and the points made.",
                    "required": ["pixels", "valid", "droppedByRange", "points"],
                    "properties": {
                      "pixels": {"type": "integer", "minimum": 0}, "valid": {"type": "integer", "minimum": 0},
                      "droppedByRange": {"type": "integer", "minimum": 0}, "points": {"type": "integer", "minimum": 0}
                    }
                  },
                  "filters": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": ["name", "argument", "parameters", "pointsIn", "pointsOut", "milliseconds"],
                      "properties": {
                        "name": {"type": "string"}, "argument": {"type": "string"}, "parameters": {"type": "object"},
                        "pointsIn": {"type": "integer"}, "pointsOut": {"type": "integer"}, "milliseconds": {"type": "number"}
                      }
                    }
                  },
                  "timings": {
                    "type": "array",
                    "items": {"type": "object", "required": ["stage", "milliseconds"], "properties": {"stage": {"type": "string"}, "milliseconds": {"type": "number"}}}
                  },
                  "totalMilliseconds": {"type": "number"}
                }
              },
              "CaptureList": {
                "type": "object",
                "required": ["captures", "next"],
                "properties": {
                  "captures": {"type": "array", "items": {"$ref": "#/components/schemas/Capture"}},
                  "next": {"type": ["string", "null"], "description": "The next page's URL, null on the last page."}
                }
              },
              "Job": {
                "type": "object",
                "required": ["id", "state", "created", "updated", "frames_done", "frames_total", "capture", "problem"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/JobID"},
                  "state": {"enum": ["queued", "running", "succeeded", "failed"]},
                  "created": {"type": "string", "format": "date-time"},
                  "updated": {"type": "string", "format": "date-time"},
                  "frames_done": {"type": "integer", "minimum": 0},
                  "frames_total": {"type": ["integer", "null"], "minimum": 0},
                  "capture": {"type": ["string", "null"], "description": "The capture's URL once the job succeeded."},
                  "problem": {
                    "oneOf": [
                      {"type": "null"},
                      {"type": "object", "required": ["title", "detail"], "properties": {"status": {"type": "integer"}, "title": {"type": "string"}, "detail": {"type": "string"}}}
                    ],
                    "description": "Why a failed job failed (title \"interrupted\" after a restart)."
                  }
                }
              },
              "DeviceReport": {
                "type": "object",
                "required": ["devices", "usbDevices"],
                "properties": {
                  "devices": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": ["model", "vendorId", "productId", "bus", "port", "serial", "backend", "source", "problem"],
                      "properties": {
                        "model": {"type": "string"}, "vendorId": {"type": "string"}, "productId": {"type": "string"},
                        "bus": {"type": "integer"}, "port": {"type": "string"}, "serial": {"type": ["string", "null"]},
                        "backend": {"type": ["string", "null"]}, "source": {"type": ["string", "null"]}, "problem": {"type": ["string", "null"]}
                      }
                    }
                  },
                  "usbDevices": {"type": "integer", "minimum": 0, "description": "All USB devices seen (0: no USB access)."}
                }
              },
              "CaptureFields": {
                "type": "object",
                "description": "The capture options, with the CLI's meaning and validation (form fields or JSON keys).",
                "properties": {
                  "depth_scale": {"type": "number", "exclusiveMinimum": 0, "description": "Raw depth units per metre (1000 for millimetres, 5000 for TUM)."},
                  "depth_encoding": {"enum": ["standard", "nyu", "sun"]},
                  "range": {"type": "string", "description": "MIN,MAX depth in metres, e.g. 0.3,4 (MAX may be inf)."},
                  "frame": {"enum": ["camera", "world"]},
                  "organized": {"type": "boolean", "description": "Keep the image grid (NaN for dropped pixels)."},
                  "fuse": {"type": "boolean", "description": "Merge several frames into one world-frame cloud."},
                  "frames": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 10000}, {"const": "all"}]}
                }
              },
              "CaptureUpload": {
                "type": "object",
                "description": "An uploaded frame (depth and intrinsics, color optional) or an uploaded archive (bundle: a capture bundle, TUM, Redwood or PCL grabber folder as .zip or .tar). Filter fields run in the order sent.",
                "anyOf": [{"required": ["depth", "intrinsics"]}, {"required": ["bundle"]}, {"required": ["photo"]}],
                "properties": {
                  "depth": {"type": "string", "format": "binary", "description": "16-bit PNG, TIFF or PGM, float TIFF or PCLZF."},
                  "color": {"type": "string", "format": "binary"},
                  "intrinsics": {"type": "string", "format": "binary", "description": "Open3D JSON, PCL grabber XML or cloudgen JSON."},
                  "bundle": {"type": "string", "format": "binary"},
                  "photo": {"type": "string", "format": "binary", "description": "An iPhone portrait photo with depth (HEIC or JPEG), as capture --source photo:FILE reads it; it carries its own calibration, so it comes without depth, color or intrinsics parts."},
                  "known_distance": {"$ref": "#/components/schemas/KnownDistance"},
                  "matte": {"type": "boolean", "description": "With photo: keep only the subject marked by the photo's portrait effects matte."},
                  "source": {"enum": ["bundle", "tum", "redwood", "pclgrabber", "polycam", "stray", "record3d"], "description": "With bundle only: what the archive holds (found out when absent)."},
                  "depth_scale": {"type": "number", "exclusiveMinimum": 0},
                  "depth_encoding": {"enum": ["standard", "nyu", "sun"]},
                  "range": {"type": "string"},
                  "frame": {"enum": ["camera", "world"]},
                  "organized": {"type": "boolean"},
                  "fuse": {"type": "boolean"},
                  "frames": {"type": "string"},
                  "crop": {"$ref": "#/components/schemas/CropBox"},
                  "voxel": {"type": "number", "exclusiveMinimum": 0},
                  "sor": {"$ref": "#/components/schemas/SOR"},
                  "radius": {"$ref": "#/components/schemas/RadiusOutliers"},
                  "normals": {"type": "string", "description": "Radius in metres; empty for 0.05."},
                  "foreground": {"type": "boolean"},
                  "name": {"type": "string", "maxLength": 120, "description": "The capture's name."},
                  "tags": {"type": "string", "description": "Tags, comma-separated; the field may repeat."},
                  "note": {"type": "string", "maxLength": 2000}
                }
              },
              "CaptureRequest": {
                "type": "object",
                "description": "A capture on the server's side: the simulated camera (synthetic:...), an attached device, or a dataset folder inside an --allow-dir folder.",
                "required": ["source"],
                "additionalProperties": false,
                "properties": {
                  "source": {"type": "string", "minLength": 1, "description": "A source spec, e.g. synthetic:room=5x4x2.6 or tum:/data/rgbd_dataset."},
                  "frames": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 10000}, {"const": "all"}]},
                  "fuse": {"type": "boolean"},
                  "frame": {"enum": ["camera", "world"]},
                  "range": {"type": "string"},
                  "depth_scale": {"type": "number", "exclusiveMinimum": 0},
                  "depth_encoding": {"enum": ["standard", "nyu", "sun"]},
                  "organized": {"type": "boolean"},
                  "known_distance": {"$ref": "#/components/schemas/KnownDistance"},
                  "matte": {"type": "boolean", "description": "photo: sources: keep only the subject marked by the portrait effects matte."},
                  "filters": {"type": "array", "items": {"type": "string"}, "description": "Steps in order, e.g. [\"voxel=0.01\", \"sor=20,2\", \"normals\"]."},
                  "name": {"type": "string", "maxLength": 120, "description": "The capture's name."},
                  "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}, "maxItems": 20},
                  "note": {"type": "string", "maxLength": 2000}
                }
              },
              "ConvertUpload": {
                "type": "object",
                "required": ["cloud"],
                "properties": {
                  "cloud": {"type": "string", "format": "binary", "description": "A PLY or PCD file."},
                  "format": {"enum": ["ply", "pcd"], "description": "Default ply."},
                  "encoding": {"enum": ["binary", "ascii", "binary_compressed"], "description": "Default binary; binary_compressed for PCD only."},
                  "range": {"type": "string"},
                  "crop": {"$ref": "#/components/schemas/CropBox"},
                  "voxel": {"type": "number", "exclusiveMinimum": 0},
                  "sor": {"$ref": "#/components/schemas/SOR"},
                  "radius": {"$ref": "#/components/schemas/RadiusOutliers"},
                  "normals": {"type": "string"},
                  "foreground": {"type": "boolean"}
                }
              }
            }
          }
        }
        """#
}
