// mcp-remote as a stdio bridge, the way Claude Desktop runs it: the SDK's
// stdio client spawns it and speaks JSON-RPC over its stdin and stdout.
//  1. --header "Authorization: Bearer …" to /mcp: tools/list and a call.
//  2. The README's Claude Desktop form: --header "Authorization:${BIFROST_AUTH}"
//     with the key in the environment, default transport.
//  3. The same to the legacy /sse endpoint with --transport sse-only, as
//     for a client that speaks only SSE.
//  4. A bad key: mcp-remote must exit non-zero, by itself, quickly.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { env, main, need, textOf } from "./check.mjs";

const require = createRequire(import.meta.url);
const proxy = require.resolve("mcp-remote/dist/proxy.js");
const base = env("BIFROST_URL");

function bridge(path, header, ...more) {
  return [proxy, new URL(path, base).href, "--header", header, "--allow-http", ...more];
}

async function connect(args, extraEnv) {
  const transport = new StdioClientTransport({
    command: process.execPath, args, env: { ...process.env, ...extraEnv }, stderr: "pipe",
  });
  const client = new Client({ name: "bifrost-mcp-remote-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

// badKey runs the bridge with a bad key, as a host would (stdin open),
// and reports how it ended.
function badKey(args, limitMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: Date.now() - started, stderr });
    });
  });
}

main(async () => {
  const key = env("BIFROST_KEY");
  const http = await connect(bridge("/mcp", `Authorization: Bearer ${key}`, "--transport", "http-only"));
  const { tools } = await http.listTools();
  need(tools.some((t) => t.name === "list_lights"), "no list_lights through the bridge");
  const lights = await http.callTool({ name: "list_lights", arguments: {} });
  need(!lights.isError && lights.structuredContent.lights.length === 6, `list_lights: ${textOf(lights)}`);
  await http.close();

  const auth = { BIFROST_AUTH: `Bearer ${key}` };
  const readme = await connect(bridge("/mcp", "Authorization:${BIFROST_AUTH}"), auth);
  const home = await readme.callTool({ name: "get_home_state", arguments: {} });
  need(!home.isError && home.structuredContent.rooms.length === 4, `get_home_state: ${textOf(home)}`);
  await readme.close();

  const sse = await connect(bridge("/sse", "Authorization:${BIFROST_AUTH}", "--transport", "sse-only"), auth);
  const sensors = await sse.callTool({ name: "list_sensors", arguments: {} });
  need(!sensors.isError && sensors.structuredContent.sensors.length === 3, `list_sensors over SSE: ${textOf(sensors)}`);
  await sse.close();

  const bad = await badKey(bridge("/mcp", `Authorization: Bearer ${env("BIFROST_BAD_KEY")}`), 15000);
  need(bad.signal === null, `with a bad key mcp-remote did not exit by itself within 15 s:\n${bad.stderr}`);
  need(bad.code !== 0, `with a bad key mcp-remote exited 0:\n${bad.stderr}`);
  // It gave up on the hub's answer to its OAuth probe, which says what to do.
  need(bad.stderr.includes("does not use OAuth"), `mcp-remote failed for another reason:\n${bad.stderr}`);
  return { tools: tools.length, sse: textOf(sensors).split("\n")[0], badKey: { code: bad.code, ms: bad.ms } };
});
