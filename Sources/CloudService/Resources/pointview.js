// cloudgen's 3D point view, shared by a capture's page (/view/{id}) and a stream's (/live/{id}),
// which the server writes it into: plain WebGL2, no external assets, no build step. The camera is
// the orbit camera of `cloudgen render` (Sources/CloudRender/OrbitCamera.swift), so a view started
// from the camera the server sends draws what the preview draws. A mouse orbits (drag), pans
// (right or shift drag) and zooms (wheel); a finger orbits, two pinch and pan.
"use strict";

// One message of cloudgen's framing: a 4-byte little-endian header length, the JSON header,
// then the payloads, whose sizes `sizes(header)` lists; each comes back as bytes.
function unpackMessage(buffer, sizes) {
  const length = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  const lengths = sizes(header);
  const total = 4 + length + lengths.reduce((a, b) => a + b, 0);
  if (buffer.byteLength !== total) throw new Error("the message is " + buffer.byteLength + " bytes, not " + total);
  let offset = 4 + length;
  const payloads = lengths.map((size) => {
    const bytes = new Uint8Array(buffer, offset, size);
    offset += size;
    return bytes;
  });
  return { header, payloads };
}

function makePointView(canvas, onDraw) {
  // Vectors as arrays of three numbers.
  const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const scaled = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

  // OrbitCamera's basis: the orbit is laid out around the up axis u; f = u × x̂ (u × ŷ when up is
  // ±x) is azimuth 0's view direction, r = f × u its right; positive elevation looks down.
  function basis(cam) {
    const axis = "xyz".indexOf(cam.up[1]);
    const u = [0, 0, 0];
    u[axis] = cam.up[0] === "-" ? -1 : 1;
    const f = cross(u, axis === 0 ? [0, 1, 0] : [1, 0, 0]);
    const r = cross(f, u);
    const az = cam.azimuth * Math.PI / 180, el = cam.elevation * Math.PI / 180;
    const forward = add(scaled(add(scaled(f, Math.cos(az)), scaled(r, Math.sin(az))), Math.cos(el)), scaled(u, -Math.sin(el)));
    const right = add(scaled(r, Math.cos(az)), scaled(f, -Math.sin(az)));
    return { right, up: cross(right, forward), forward };
  }

  const gl = canvas.getContext("webgl2", { antialias: false });
  if (!gl) throw new Error("this browser has no WebGL2, which the 3D view needs");
  const vertexShader = `#version 300 es
in vec3 a_position;
in vec3 a_color;
uniform vec3 u_origin;
uniform float u_scale;
uniform vec3 u_eye, u_right, u_up, u_forward;
uniform vec2 u_focal;
uniform float u_near, u_far, u_size;
out vec3 v_color;
void main() {
  vec3 v = u_origin + a_position * u_scale - u_eye;
  float z = dot(v, u_forward);
  // The pinhole of OrbitCamera: column w/2 + focal·x/z, row h/2 − focal·y/z.
  gl_Position = vec4(u_focal.x * dot(v, u_right), u_focal.y * dot(v, u_up),
                     (z * (u_far + u_near) - 2.0 * u_far * u_near) / (u_far - u_near), z);
  gl_PointSize = u_size;
  v_color = a_color;
}`;
  const fragmentShader = `#version 300 es
precision mediump float;
in vec3 v_color;
out vec4 color;
void main() { color = vec4(v_color, 1.0); }`;

  const shader = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, vertexShader], [gl.FRAGMENT_SHADER, fragmentShader]]) {
    const made = gl.createShader(type);
    gl.shaderSource(made, source);
    gl.compileShader(made);
    if (!gl.getShaderParameter(made, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(made));
    gl.attachShader(shader, made);
  }
  gl.linkProgram(shader);
  if (!gl.getProgramParameter(shader, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(shader));
  const uniforms = {};
  for (const name of ["u_origin", "u_scale", "u_eye", "u_right", "u_up", "u_forward", "u_focal", "u_near", "u_far", "u_size"]) {
    uniforms[name] = gl.getUniformLocation(shader, name);
  }
  const vertexArray = gl.createVertexArray();
  gl.bindVertexArray(vertexArray);
  const positionBuffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, positionBuffer);
  const position = gl.getAttribLocation(shader, "a_position");
  gl.enableVertexAttribArray(position);
  gl.vertexAttribPointer(position, 3, gl.SHORT, false, 0, 0);
  const colorBuffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, colorBuffer);
  const color = gl.getAttribLocation(shader, "a_color");
  gl.enableVertexAttribArray(color);
  gl.vertexAttribPointer(color, 3, gl.UNSIGNED_BYTE, true, 0, 0);
  gl.enable(gl.DEPTH_TEST);

  const view = { cloud: null, camera: null, home: null, size: 1, frames: 0 };
  let pending = false;

  // The canvas in device pixels, as the picture the camera frames.
  function canvasSize() {
    const ratio = window.devicePixelRatio || 1;
    return [Math.max(16, Math.round(canvas.clientWidth * ratio)), Math.max(16, Math.round(canvas.clientHeight * ratio))];
  }

  function draw() {
    pending = false;
    const [width, height] = canvasSize();
    if (canvas.width !== width || canvas.height !== height) [canvas.width, canvas.height] = [width, height];
    gl.viewport(0, 0, width, height);
    // The background of `cloudgen render` and the preview route.
    gl.clearColor(24 / 255, 26 / 255, 30 / 255, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const { cloud, camera } = view;
    if (!cloud || !camera) return;
    const b = basis(camera);
    const eye = add(camera.target, scaled(b.forward, -camera.distance));
    const focal = (height / 2) / Math.tan(camera.fieldOfView * Math.PI / 360);
    gl.useProgram(shader);
    gl.uniform3fv(uniforms.u_origin, cloud.origin);
    gl.uniform1f(uniforms.u_scale, cloud.scale);
    gl.uniform3fv(uniforms.u_eye, eye);
    gl.uniform3fv(uniforms.u_right, b.right);
    gl.uniform3fv(uniforms.u_up, b.up);
    gl.uniform3fv(uniforms.u_forward, b.forward);
    gl.uniform2f(uniforms.u_focal, focal / (width / 2), focal / (height / 2));
    // OrbitCamera's near plane; the far one well beyond the cloud.
    gl.uniform1f(uniforms.u_near, camera.distance * 1e-3);
    gl.uniform1f(uniforms.u_far, camera.distance * 10 + cloud.radius * 4);
    gl.uniform1f(uniforms.u_size, view.size);
    gl.bindVertexArray(vertexArray);
    gl.drawArrays(gl.POINTS, 0, cloud.points);
    view.frames += 1;
    document.body.dataset.drawn = String(view.frames);
    if (onDraw) onDraw();
  }

  function redraw() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  }

  // Orbit, pan and zoom, as the preview's camera moves.
  function orbit(dx, dy) {
    view.camera.azimuth -= dx * 0.3;
    view.camera.elevation = Math.max(-89.9, Math.min(89.9, view.camera.elevation + dy * 0.3));
    redraw();
  }
  function pan(dx, dy) {
    const b = basis(view.camera);
    const [, height] = canvasSize();
    // Metres per pixel at the target's distance.
    const step = 2 * view.camera.distance * Math.tan(view.camera.fieldOfView * Math.PI / 360) / height * (window.devicePixelRatio || 1);
    view.camera.target = add(view.camera.target, add(scaled(b.right, -dx * step), scaled(b.up, dy * step)));
    redraw();
  }
  function zoom(factor) {
    view.camera.distance = Math.max(1e-3, view.camera.distance * factor);
    redraw();
  }

  const pointers = new Map();
  canvas.addEventListener("contextmenu", (event) => event.preventDefault());
  canvas.addEventListener("pointerdown", (event) => {
    canvas.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY, pan: event.button === 2 || event.shiftKey });
  });
  canvas.addEventListener("pointermove", (event) => {
    const last = pointers.get(event.pointerId);
    if (!last || !view.camera) return;
    const [dx, dy] = [event.clientX - last.x, event.clientY - last.y];
    if (pointers.size === 2) {
      // Two fingers: the change of their span zooms, their midpoint's move pans.
      const [a, b] = [...pointers.values()];
      const other = a === last ? b : a;
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(event.clientX - other.x, event.clientY - other.y);
      if (before > 0 && after > 0) zoom(before / after);
      pan(dx / 2, dy / 2);
    } else if (last.pan) {
      pan(dx, dy);
    } else {
      orbit(dx, dy);
    }
    last.x = event.clientX;
    last.y = event.clientY;
  });
  for (const name of ["pointerup", "pointercancel"]) canvas.addEventListener(name, (event) => pointers.delete(event.pointerId));
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    if (view.camera) zoom(Math.exp(event.deltaY * 0.001));
  }, { passive: false });
  window.addEventListener("resize", redraw);

  return {
    canvasSize,
    redraw,
    // A cloud message's header (points, origin, scale) and its position and color bytes (WebGL
    // reads the positions as int16, which needs no 2-byte alignment from a byte array).
    show(header, positions, colors) {
      gl.bindBuffer(gl.ARRAY_BUFFER, positionBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, positions, gl.STREAM_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, colorBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, colors, gl.STREAM_DRAW);
      view.cloud = { points: header.points, origin: header.origin, scale: header.scale, radius: header.scale * 32767 * Math.sqrt(3) };
      redraw();
    },
    get hasCamera() { return view.home !== null; },
    // The server's camera (`cloudgen render`'s, as a header's `camera` gives it) becomes home.
    setHome(c, pointSize) {
      view.home = { target: c.target, distance: c.distance, azimuth: c.azimuth, elevation: c.elevation, fieldOfView: c.field_of_view, up: c.up };
      view.camera = { ...view.home, target: [...view.home.target] };
      view.size = pointSize;
      redraw();
    },
    reset() {
      if (!view.home) return;
      view.camera = { ...view.home, target: [...view.home.target] };
      redraw();
    },
    set size(pixels) { view.size = pixels; redraw(); },
    get size() { return view.size; },
  };
}
