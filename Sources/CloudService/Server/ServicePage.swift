/// GET /: the captures, newest first, with previews, names, tags, warnings and downloads; the
/// latest jobs with their progress; an upload form for a frame, an archive or a photo. One page,
/// no build step, no external assets: the CSS and the script are inline, and everything it shows comes from the
/// API itself (/v1/captures, the preview route), so the page can never know more than a client.
///
/// With a token, the page cannot put it in an <img> or a link: it keeps it in sessionStorage
/// (gone with the tab), sends it as a bearer header on fetches, and shows images and downloads
/// through blob URLs. Without one, thumbnails are plain <img src> on the preview route, which the
/// browser caches by their ETag.
enum ServicePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>cloudgen</title>
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
          header { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 12px 20px; background: #1d2330; color: #fff; }
          header h1 { font-size: 20px; margin: 0 12px 0 0; }
          header label { display: flex; gap: 6px; align-items: center; }
          main { padding: 16px 20px; }
          section.panel { background: #fff; border-radius: 6px; padding: 12px 16px; margin-bottom: 16px; box-shadow: 0 1px 2px #0002; }
          form { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; }
          form label { display: flex; flex-direction: column; font-size: 12px; color: #555; }
          #captures { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 16px; }
          .capture { background: #fff; border-radius: 6px; padding: 10px; box-shadow: 0 1px 2px #0002; }
          .capture img { display: block; width: 240px; height: 180px; background: #20242c; border-radius: 4px; }
          .capture img:not(.loaded) { opacity: 0.5; }
          .capture code { font-size: 12px; word-break: break-all; }
          .capture .meta { color: #555; font-size: 12px; }
          .capture a, .capture button { font-size: 12px; margin-right: 8px; }
          .capture h2 { font-size: 15px; margin: 6px 0 2px; }
          .capture .tags span { display: inline-block; background: #e3e8f2; border-radius: 3px; padding: 0 5px; margin: 2px 4px 2px 0; font-size: 12px; }
          .capture ul.warnings { color: #8a5300; font-size: 12px; margin: 4px 0; padding-left: 16px; }
          #jobs li { margin: 4px 0; }
          #jobs progress { width: 160px; vertical-align: middle; }
          #status { min-height: 1.4em; }
          .error { color: #b00020; }
        </style>
        </head>
        <body>
        <header>
          <h1>cloudgen</h1>
          <label>azimuth <input id="azimuth" type="range" min="-180" max="180" step="15" value="0"><span id="azimuth-value">0°</span></label>
          <label>elevation <input id="elevation" type="range" min="-75" max="75" step="15" value="0"><span id="elevation-value">0°</span></label>
          <label>token <input id="token" type="password" size="20" placeholder="only if the server has one" autocomplete="off"></label>
        </header>
        <main>
          <section class="panel">
            <form id="upload">
              <label>depth <input name="depth" type="file"></label>
              <label>color <input name="color" type="file"></label>
              <label>intrinsics <input name="intrinsics" type="file"></label>
              <label>or an archive (.zip, .tar) <input name="bundle" type="file"></label>
              <label>or a photo (HEIC, JPEG) <input name="photo" type="file"></label>
              <label>depth_scale <input name="depth_scale" type="number" min="0" step="any" placeholder="1000"></label>
              <label>range <input name="range" size="8" placeholder="0.3,4"></label>
              <label>voxel <input name="voxel" type="number" min="0" step="any" placeholder="0.01"></label>
              <label>known_distance <input name="known_distance" size="12" placeholder="X,Y=METRES"></label>
              <label>name <input name="name" size="16" maxlength="120"></label>
              <label>tags <input name="tags" size="16" placeholder="kitchen,floor-1"></label>
              <label>note <input name="note" size="20" maxlength="2000"></label>
              <button type="submit">Upload</button>
            </form>
          </section>
          <section class="panel" id="streams-panel">
            <strong>Live streams</strong>
            <button id="simulate">Start a simulated stream</button>
            <ul id="streams"></ul>
          </section>
          <section class="panel" id="jobs-panel" hidden>
            <strong>Jobs</strong>
            <ul id="jobs"></ul>
          </section>
          <p id="status"></p>
          <div id="captures"></div>
          <p><button id="more" hidden>More</button></p>
        </main>
        <script>
        "use strict";
        const THUMB = { width: 240, height: 180 };
        const listEl = document.getElementById("captures");
        const statusEl = document.getElementById("status");
        const moreEl = document.getElementById("more");
        const tokenEl = document.getElementById("token");
        const azimuthEl = document.getElementById("azimuth");
        const elevationEl = document.getElementById("elevation");
        let next = null;

        tokenEl.value = sessionStorage.getItem("cloudgen-token") || "";
        tokenEl.addEventListener("change", () => {
          sessionStorage.setItem("cloudgen-token", tokenEl.value.trim());
          reload();
        });

        function token() { return tokenEl.value.trim(); }

        function api(path, options = {}) {
          const headers = new Headers(options.headers || {});
          if (token()) headers.set("Authorization", "Bearer " + token());
          return fetch(path, { ...options, headers });
        }

        // A problem+json answer as one line: its detail, and the field it names.
        async function problemText(response) {
          try {
            const problem = await response.json();
            return (problem.field ? problem.field + ": " : "") + (problem.detail || problem.title || response.statusText);
          } catch (_) {
            return response.status + " " + response.statusText;
          }
        }

        function say(text, isError) {
          statusEl.textContent = text;
          statusEl.className = isError ? "error" : "";
        }

        function previewURL(capture) {
          const q = new URLSearchParams({ azimuth: azimuthEl.value, elevation: elevationEl.value,
                                          width: THUMB.width, height: THUMB.height });
          return capture.links.preview + "?" + q;
        }

        // Without a token the <img> asks the route itself; with one, a fetch carries the header and
        // the image shows a blob URL (data-src still names the route).
        async function showPreview(img, capture) {
          const url = previewURL(capture);
          img.dataset.src = url;
          img.classList.remove("loaded");
          if (!token()) { img.src = url; return; }
          const response = await api(url);
          if (!response.ok) { img.alt = await problemText(response); return; }
          if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
          img.src = URL.createObjectURL(await response.blob());
        }

        // Downloads through a link cannot carry a bearer header: fetch, then save the blob.
        async function download(event) {
          if (!token()) return;
          event.preventDefault();
          const link = event.currentTarget;
          const response = await api(link.getAttribute("href"));
          if (!response.ok) { say(await problemText(response), true); return; }
          const saver = document.createElement("a");
          saver.href = URL.createObjectURL(await response.blob());
          saver.download = attachmentName(response) || link.getAttribute("download") || "";
          saver.click();
          setTimeout(() => URL.revokeObjectURL(saver.href), 10000);
        }

        // The file name the server gives a download (Content-Disposition, RFC 6266): filename*, else filename.
        function attachmentName(response) {
          const header = response.headers.get("Content-Disposition") || "";
          const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
          if (extended) return decodeURIComponent(extended[1]);
          const plain = /filename="([^"]*)"/i.exec(header);
          return plain ? plain[1] : "";
        }

        function card(capture) {
          const item = document.createElement("article");
          item.className = "capture";
          item.id = "capture-" + capture.id;
          item.dataset.id = capture.id;
          const img = document.createElement("img");
          img.className = "preview";
          img.width = THUMB.width;
          img.height = THUMB.height;
          img.alt = "preview of " + capture.id;
          // "loaded" marks a preview the browser has decoded (a fresh angle shows dimmed until then).
          img.addEventListener("load", () => img.classList.add("loaded"));
          item.append(img);
          const title = document.createElement("h2");
          title.className = "name";
          title.textContent = capture.name || "(unnamed)";
          const tags = document.createElement("div");
          tags.className = "tags";
          for (const tag of capture.tags || []) {
            const span = document.createElement("span");
            span.textContent = tag;
            tags.append(span);
          }
          const warnings = document.createElement("ul");
          warnings.className = "warnings";
          for (const warning of capture.warnings || []) {
            const li = document.createElement("li");
            li.textContent = warning;
            warnings.append(li);
          }
          const id = document.createElement("code");
          id.textContent = capture.id;
          const meta = document.createElement("div");
          meta.className = "meta";
          meta.textContent = capture.points.toLocaleString("en") + " points · " +
            new Date(capture.created).toLocaleString() + " · " + capture.source;
          const links = document.createElement("div");
          const view = document.createElement("a");
          view.href = "/view/" + encodeURIComponent(capture.id);
          view.textContent = "3D";
          view.className = "view";
          links.append(view);
          // The server names the files (Content-Disposition); the JSON is the document itself.
          const files = [["PLY", capture.links.cloud_ply, ""], ["PCD", capture.links.cloud_pcd, ""],
                         ["depth.png", capture.links.depth, ""], ["JSON", capture.links.self, capture.id + ".json"]];
          for (const [label, href, name] of files) {
            const a = document.createElement("a");
            a.href = href;
            a.textContent = label;
            a.setAttribute("download", name);
            a.addEventListener("click", download);
            links.append(a);
          }
          const remove = document.createElement("button");
          remove.textContent = "Delete";
          remove.addEventListener("click", async () => {
            if (!confirm("Delete capture " + capture.id + "?")) return;
            const response = await api(capture.links.self, { method: "DELETE" });
            if (response.status === 204) item.remove(); else say(await problemText(response), true);
          });
          links.append(remove);
          item.append(title, tags, id, meta, warnings, links);
          showPreview(img, capture);
          item.capture = capture;
          return item;
        }

        async function load(url) {
          const response = await api(url);
          if (!response.ok) {
            say(response.status === 401 ? "This server needs a token: enter it above." : await problemText(response), true);
            return;
          }
          const page = await response.json();
          for (const capture of page.captures) listEl.append(card(capture));
          next = page.next;
          moreEl.hidden = !next;
          if (!listEl.children.length) say("No captures yet: upload a frame above.");
          else say(listEl.children.length + (listEl.children.length === 1 ? " capture" : " captures") + (next ? " (more below)" : ""));
        }

        function reload() {
          listEl.replaceChildren();
          load("/v1/captures?limit=24");
        }

        moreEl.addEventListener("click", () => { if (next) load(next); });

        // The orbit: every thumbnail asks the preview route for the new angle once the slider rests.
        let orbitTimer = null;
        for (const slider of [azimuthEl, elevationEl]) {
          slider.addEventListener("input", () => {
            document.getElementById(slider.id + "-value").textContent = slider.value + "°";
            clearTimeout(orbitTimer);
            orbitTimer = setTimeout(() => {
              for (const item of listEl.children) showPreview(item.querySelector("img"), item.capture);
            }, 250);
          });
        }

        document.getElementById("upload").addEventListener("submit", async (event) => {
          event.preventDefault();
          const form = new FormData();
          for (const input of event.target.elements) {
            if (!input.name) continue;
            if (input.type === "file") { if (input.files[0]) form.append(input.name, input.files[0]); }
            else if (input.value) form.append(input.name, input.value);
          }
          say("Uploading…");
          const response = await api("/v1/captures", { method: "POST", body: form });
          if (response.status === 202) {
            const job = await response.json();
            showJob(job);
            say("Archive accepted: job " + job.id);
            event.target.reset();
            return;
          }
          if (response.status !== 201) { say(await problemText(response), true); return; }
          const capture = await response.json();
          listEl.prepend(card(capture));
          say("Stored " + capture.id + ": " + capture.points.toLocaleString("en") + " points");
          event.target.reset();
        });

        // Jobs: the latest ones, each with its progress; an unfinished one follows its event stream
        // (read through fetch, so that it carries the token), and a finished one's capture is listed.
        const jobsEl = document.getElementById("jobs");

        function renderJob(row, job) {
          const done = job.frames_done, total = job.frames_total;
          row.dataset.state = job.state;
          row.querySelector(".state").textContent = job.state + (total ? " · " + done + " of " + total + " frames" : done ? " · " + done + " frames" : "");
          const bar = row.querySelector("progress");
          if (total) { bar.max = total; bar.value = done; } else if (job.state === "succeeded") { bar.max = 1; bar.value = 1; }
          row.querySelector(".problem").textContent = job.problem ? job.problem.detail || job.problem.title : "";
        }

        function showJob(job, append) {
          document.getElementById("jobs-panel").hidden = false;
          let row = document.getElementById("job-" + job.id);
          if (!row) {
            row = document.createElement("li");
            row.id = "job-" + job.id;
            const code = document.createElement("code");
            code.textContent = job.id;
            const state = document.createElement("span");
            state.className = "state";
            const problem = document.createElement("span");
            problem.className = "error problem";
            row.append(code, " ", document.createElement("progress"), " ", state, " ", problem);
            if (append) jobsEl.append(row); else jobsEl.prepend(row);
          }
          renderJob(row, job);
          if (job.state === "queued" || job.state === "running") follow(job, row);
        }

        async function follow(job, row) {
          const response = await api("/v1/jobs/" + job.id + "/events");
          if (!response.ok || !response.body) return;
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffered = "", last = job;
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffered += value;
            let end;
            while ((end = buffered.indexOf("\n\n")) >= 0) {
              const block = buffered.slice(0, end);
              buffered = buffered.slice(end + 2);
              const data = block.split("\n").find(line => line.startsWith("data: "));
              if (data) { last = JSON.parse(data.slice(6)); renderJob(row, last); }
            }
          }
          if (last.state === "succeeded" && last.capture) {
            const capture = await api(last.capture);
            if (capture.ok) listEl.prepend(card(await capture.json()));
          }
        }

        async function loadJobs() {
          const response = await api("/v1/jobs?limit=10");
          if (!response.ok) return;
          const page = await response.json();
          for (const job of page.jobs) showJob(job, true);
        }

        // Each open stream, linked to its live page; a simulated camera's stream starts one.
        async function loadStreams() {
          const response = await api("/v1/streams");
          if (!response.ok) return;
          const items = (await response.json()).streams.map((stream) => {
            const item = document.createElement("li");
            const link = document.createElement("a");
            link.href = "/live/" + encodeURIComponent(stream.id);
            link.textContent = stream.id;
            item.append(link, ` ${stream.feed}, ${stream.frames} frames, ${stream.viewers} watching`);
            return item;
          });
          document.getElementById("streams").replaceChildren(...items);
        }
        document.getElementById("simulate").addEventListener("click", async () => {
          const response = await api("/v1/streams", {
            method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ source: "synthetic:path=orbit,frames=120", fps: 15 }),
          });
          if (!response.ok) { say(await problemText(response), true); return; }
          location.href = (await response.json()).page;
        });

        reload();
        loadJobs();
        loadStreams();
        </script>
        </body>
        </html>
        """#
}
