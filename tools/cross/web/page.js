// moonloop's web page: loads the runtime and the game beside it, and runs
// the game headless on the page's asking (?frames=N&clock=SPEC&input=FILE),
// saying `frame N: HASH` in #moonloop-status and in the title, as
// `moonloop run GAME --headless --state-hash` says it on a desktop.
"use strict";

(async () => {
  const status = document.getElementById("moonloop-status");
  const say = (text) => {
    status.textContent = text;
    document.title = text;
  };
  try {
    const asked = new URLSearchParams(location.search);
    const frames = asked.get("frames") || "600";
    const clock = asked.get("clock") || "constant:1/60";
    const input = asked.get("input");
    const fetched = async (name) => {
      const response = await fetch(name);
      if (!response.ok) {
        throw new Error(`${name}: ${response.status} ${response.statusText}`);
      }
      return new Uint8Array(await response.arrayBuffer());
    };
    const printed = [];
    const errors = [];
    const runtime = await moonloop({
      noInitialRun: true,
      print: (line) => printed.push(line),
      printErr: (line) => errors.push(line),
    });
    runtime.FS.writeFile("/game.zip", await fetched("game.zip"));
    const args = ["run", "/game.zip", "--headless", "--clock", clock, "--frames", frames, "--state-hash"];
    if (input) {
      if (!/^[A-Za-z0-9_.-]+$/.test(input)) {
        throw new Error(`input=${input}: name a file beside the page`);
      }
      runtime.FS.writeFile("/input.txt", await fetched(input));
      args.push("--input", "/input.txt");
    }
    let code = 0;
    try {
      code = runtime.callMain(args);
    } catch (thrown) {
      code = thrown && thrown.status !== undefined ? thrown.status : 1;
    }
    const hash = printed.filter((line) => /^[0-9a-f]{16}$/.test(line)).pop();
    if (code === 0 && hash) {
      say(`frame ${frames}: ${hash}`);
    } else {
      say(errors.join(" ") || `moonloop: the run ended with code ${code}`);
    }
  } catch (failed) {
    say(`moonloop: ${failed.message || failed}`);
  }
})();
