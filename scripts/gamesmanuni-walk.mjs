#!/usr/bin/env node
// The browser walk: GamesmanUni (the GamesCrafters' web front end), built unchanged but for its
// API base, over `gamesman serve`'s Universal Web API, in headless Chromium. For every game the
// server lists under /uwapi/ (its default variant, and the next where the default starts
// over; --variant ID: that variant, in the games that have it), it opens the game's page,
// checks that the board shows, then clicks the best move (the first of the answer's moves, sorted best first)
// until the game ends or --clicks clicks, and records: loaded, clicks, finished, the Visual
// Value History's links, the console's errors. Not part of CI: it needs npm, a network for the
// first run, and minutes.
//
//   node scripts/gamesmanuni-walk.mjs SCRATCH [--uni DIR] [--gamesman BIN] [--games a,b] [--variant ID]
//        [--clicks 40] [--time-limit 10] [--cache DIR] [--shots DIR] [--json FILE]
//
// SCRATCH: a folder of your own, outside this repository. GamesmanUni is cloned into
// SCRATCH/GamesmanUni (v5.0.35) unless --uni names a checkout; its API base
// (src/models/datas/defaultApp.ts) is set to the server's, and it is built with its own Yarn
// (`node .yarn/releases/yarn-3.2.1.cjs install`, `… run build`) when dist/ is missing or
// the base changed. puppeteer-core is installed into SCRATCH with npm if it is not there.
// --gamesman: the binary (default target/release/gamesman); it serves every game in ./games,
// reading the databases saved under --cache (its XDG_CACHE_HOME; default the user's).
// --shots DIR: screenshots of Connect-Four 4×4, Dodgem (a car about to leave) and the
// 8-puzzle's scrambled start.
// The table goes to stdout as markdown; --json FILE writes every record.

import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : dflt;
};
const scratch = args[0] && !args[0].startsWith("--") ? path.resolve(args[0]) : null;
if (!scratch) {
    console.error("usage: node scripts/gamesmanuni-walk.mjs SCRATCH [--uni DIR] [--gamesman BIN] [--games a,b] [--clicks N] [--time-limit S] [--shots DIR] [--json FILE]");
    process.exit(2);
}
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
if (scratch === repo || scratch.startsWith(repo + path.sep)) {
    console.error("SCRATCH must be outside this repository (GamesmanUni is not copied into it)");
    process.exit(2);
}
fs.mkdirSync(scratch, { recursive: true });
const uni = path.resolve(opt("uni", path.join(scratch, "GamesmanUni")));
const gamesman = path.resolve(opt("gamesman", path.join(repo, "target/release/gamesman")));
const maxClicks = Number(opt("clicks", "40"));
const timeLimit = opt("time-limit", "10");
const only = opt("games", null)?.split(",");
const shots = opt("shots", null);
const apiPort = Number(opt("api-port", "18421"));
const uniPort = Number(opt("uni-port", "18422"));
const api = `http://127.0.0.1:${apiPort}/uwapi/`;

const run = (cmd, argv, cwd) => execFileSync(cmd, argv, { cwd, stdio: ["ignore", "inherit", "inherit"] });

// 1. GamesmanUni, pointed at the server, built.
if (!fs.existsSync(uni)) {
    run("git", ["clone", "--depth", "1", "--branch", "v5.0.35", "https://github.com/GamesCrafters/GamesmanUni", uni]);
}
const appFile = path.join(uni, "src/models/datas/defaultApp.ts");
const appText = fs.readFileSync(appFile, "utf8");
const pointed = appText.replace(/gameAPI: "[^"]*"/, `gameAPI: "${api}"`);
const yarn = path.join(uni, ".yarn/releases/yarn-3.2.1.cjs");
if (pointed !== appText || !fs.existsSync(path.join(uni, "dist/index.html"))) {
    fs.writeFileSync(appFile, pointed);
    if (!fs.existsSync(path.join(uni, "node_modules"))) run("node", [yarn, "install"], uni);
    run("node", [yarn, "run", "build"], uni);
}

// 2. puppeteer-core.
const require = createRequire(path.join(scratch, "package.json"));
let puppeteer;
try {
    puppeteer = require("puppeteer-core");
} catch {
    run("npm", ["install", "--no-audit", "--no-fund", "--prefix", scratch, "puppeteer-core@24"], scratch);
    puppeteer = require("puppeteer-core");
}

// 3. The server, and GamesmanUni's dist/ under /uni/ (its base), every other path its index.
const cache = opt("cache", null);
const server = spawn(gamesman, ["serve", "--port", String(apiPort), "--time-limit", timeLimit], {
    cwd: repo,
    env: cache ? { ...process.env, XDG_CACHE_HOME: path.resolve(cache) } : process.env,
    stdio: ["ignore", "pipe", "inherit"],
});
await new Promise((ok, fail) => {
    server.stdout.once("data", ok);
    server.once("exit", (c) => fail(new Error(`gamesman serve ended (${c})`)));
});
const dist = path.join(uni, "dist");
const types = { ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".html": "text/html", ".json": "application/json", ".png": "image/png", ".ico": "image/x-icon", ".webmanifest": "application/manifest+json" };
const files = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/uni\/?/, "");
    let file = path.join(dist, path.normalize(rel));
    if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) file = path.join(dist, "index.html");
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => files.listen(uniPort, "127.0.0.1", ok));

const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
    defaultViewport: { width: 1400, height: 1000 },
});

const getJson = async (p) => (await fetch(api + p)).json();
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// The title GamesmanUni gives a move's button (`moveButtonTitle` in ImageAutoGUI.vue).
const title = (m) => {
    const v = m.moveValue[0].toUpperCase() + m.moveValue.slice(1);
    return v === "Draw" || v === "Unsolved" || m.remoteness < 0 ? v : `${v} in ${m.remoteness}`;
};

/** What the board and its moves look like now. */
const signature = () =>
    ["#image-autogui", "#position-string", "#listed-moves"].map((q) => document.querySelector(q)?.outerHTML ?? "").join("|");

/** Open `game` (`variant`) and click the best move until the end or `maxClicks`. */
async function walk(game, variant, shot, clicks, from) {
    const page = await browser.newPage();
    const errors = [];
    const answers = []; // the position answers the page received, in order
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on("dialog", (d) => {
        errors.push(`alert: ${d.message()}`);
        d.dismiss();
    });
    page.on("response", async (r) => {
        if (!r.url().startsWith(api) || !r.url().includes("/positions/")) return;
        try {
            const j = await r.json();
            if (j.position) answers.push(j);
        } catch {}
    });
    const type = game.type === "onePlayer" ? "puzzles" : "games";
    const rec = { id: game.id, variant, gui: game.gui, loaded: false, path: [], clicks: 0, finished: false, value: null, vvhLinks: 0, errors };
    const wait = async (cond, ms) => {
        for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await cond()) return true;
        return false;
    };
    try {
        const v = await getJson(`${game.id}/${variant}/`);
        if (from) v.startPosition = from;
        const at = from ? `/${from}` : "";
        await page.goto(`http://127.0.0.1:${uniPort}/uni/${type}/${game.id}/variants/${variant}${at}`, { waitUntil: "networkidle0", timeout: 60000 });
        const board = game.gui === "v2" ? "#image-autogui" : "#position-string, #listed-moves";
        const start = () => answers.find((a) => a.position === v.startPosition);
        rec.loaded = await wait(async () => (await page.$(board)) !== null && start() !== undefined, 30000);
        if (!rec.loaded) return rec;
        let here = start();
        rec.value = here.positionValue;
        await sleep(300);
        if (shot) await page.screenshot({ path: shot });
        while (here.moves.length && rec.clicks < clicks) {
            const best = here.moves[0];
            rec.path.push(`${here.positionValue} ${here.remoteness}: ${best.autoguiMove} (${title(best)})`);
            // A move on the board: its element, by kind, value and title (moves of one value
            // and remoteness are equally good); a move listed: its button, by name.
            const handle = await page.evaluateHandle(
                (best, t) => {
                    const svg = document.querySelector("#image-autogui");
                    if (svg && /^[AMLT]_/.test(best.autoguiMove)) {
                        const kind = { A: ".iag-button-point", T: ".iag-button-point", M: ".iag-button-arrow", L: ".iag-button-line" }[best.autoguiMove[0]];
                        return [...svg.querySelectorAll(`${kind}.hint-${best.moveValue}`)].find(
                            (e) => e.querySelector("title")?.textContent.trim() === t,
                        );
                    }
                    return [...document.querySelectorAll("#listed-moves .move")].find((e) => e.textContent.trim() === best.move);
                },
                best,
                title(best),
            );
            const el = handle.asElement();
            if (!el) {
                errors.push(`walk: no element for the best move ${best.autoguiMove} (${title(best)})`);
                break;
            }
            const seen = answers.length;
            const before = await page.evaluate(signature);
            await el.evaluate((e) => e.dispatchEvent(new MouseEvent("click", { bubbles: true })));
            rec.clicks++;
            // The page asks for the child it moved to: one as good as the best (same value and
            // remoteness), since elements are found by those.
            const good = (a) => here.moves.some((m) => m.position === a.position && m.moveValue === best.moveValue && m.remoteness === best.remoteness);
            if (!(await wait(async () => answers.slice(seen).some(good), 30000))) {
                errors.push(`walk: the page did not move after clicking ${best.autoguiMove}`);
                break;
            }
            here = answers.slice(seen).find(good);
            // GamesmanUni animates the move, its buttons hidden, then draws the new position's.
            const n = here.moves.length;
            const drawn = () =>
                page.evaluate(
                    (before, n) => {
                        const q = "#image-autogui .iag-button-point, #image-autogui .iag-button-arrow, #image-autogui .iag-button-line, #listed-moves .move";
                        const sig = ["#image-autogui", "#position-string", "#listed-moves"].map((q) => document.querySelector(q)?.outerHTML ?? "").join("|");
                        return sig !== before && document.querySelectorAll(q).length === n;
                    },
                    before,
                    n,
                );
            if (!(await wait(drawn, 10000))) {
                errors.push(`walk: the page did not draw the ${n} moves of ${here.position}`);
                break;
            }
        }
        rec.finished = here.moves.length === 0;
        await sleep(500);
        rec.vvh = await page.evaluate(() => document.querySelector("#app-game-vvh svg#chart") !== null);
        rec.vvhLinks = await page.evaluate(() => document.querySelectorAll("#app-game-vvh line.link").length);
    } catch (e) {
        errors.push(`walk: ${e.message}`);
    } finally {
        await page.close();
    }
    return rec;
}

const records = [];
try {
    const games = await getJson("");
    for (const g of games) {
        if (only && !only.includes(g.id)) continue;
        const info = await getJson(`${g.id}/`);
        // The default variant; where it starts over (a puzzle that starts solved), the next too.
        const wanted = opt("variant", null);
        const variants = wanted ? info.variants.filter((v) => v.id === wanted) : info.variants.slice(0, 2);
        for (const v of variants) {
            const rec = await walk(g, v.id, null, maxClicks);
            records.push(rec);
            console.error(`${rec.id}/${rec.variant}: loaded ${rec.loaded}, ${rec.clicks} clicks, finished ${rec.finished}, VVH ${rec.vvh} (${rec.vvhLinks} links), ${rec.errors.length} errors`);
            if (!(rec.finished && rec.clicks === 0)) break;
        }
    }
    if (shots) {
        fs.mkdirSync(shots, { recursive: true });
        // Dodgem where a car may leave the board (X's at the top right).
        const shown = [["connect4", "4x4"], ["dodgem", "regular", "1_eexxeeeoo~..x_2Fx.._2F.oo"], ["8-puzzle", "scrambled"]];
        for (const [id, variant, from] of shown) {
            const g = (await getJson("")).find((x) => x.id === id);
            if (g) await walk(g, variant, path.join(shots, `gamesmanuni-${id}.png`), 0, from);
        }
    }
} finally {
    await browser.close();
    files.close();
    server.kill();
}
if (opt("json", null)) fs.writeFileSync(opt("json"), JSON.stringify(records, null, 1));
// Errors of the page's own that name no host of ours (its web fonts, from Google, offline)
// are counted apart.
const external = (e) => /ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED/.test(e) && !e.includes("127.0.0.1");
console.log("| Game | Variant | Loaded | Clicks | Finished | Start's value | VVH (links) | Console errors |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of records) {
    const ours = r.errors.filter((e) => !external(e));
    const ext = r.errors.length - ours.length;
    const errs = (ours.length ? ours.map((e) => e.replaceAll("|", "/")).join("; ") : "none") + (ext ? ` (${ext} external)` : "");
    const fin = r.finished ? "yes" : `no (${r.clicks >= maxClicks ? `stopped at ${maxClicks}` : "failed"})`;
    console.log(`| ${r.id} | ${r.variant} | ${r.loaded ? "yes" : "no"} | ${r.clicks} | ${fin} | ${r.value ?? "–"} | ${r.vvh ? "yes" : "no"} (${r.vvhLinks}) | ${errs} |`);
}
