// The official TypeScript SDK client over Streamable HTTP: initialize,
// list the tools, set a light by name, get the options back for an
// ambiguous name, then fail cleanly with a revoked key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { env, main, need, textOf } from "./check.mjs";

const url = new URL("/mcp", env("BIFROST_URL"));

// statuses are the HTTP statuses the hub answered, in order.
const statuses = [];

function connect(key) {
  const client = new Client({ name: "bifrost-ts-sdk-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    },
  });
  return { client, transport };
}

main(async () => {
  const { client, transport } = connect(env("BIFROST_KEY"));
  await client.connect(transport);
  need(transport.sessionId === undefined, `the server handed out session ${transport.sessionId}`);
  const version = transport.protocolVersion;
  const instructions = client.getInstructions() ?? "";
  need(instructions.includes("get_home_state"), "no instructions");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  need(names.includes("set_light") && names.includes("get_home_state"), `tools: ${names}`);

  // callTool validates structuredContent against the tool's outputSchema.
  const set = await client.callTool({ name: "set_light", arguments: { light: "Desk Lamp", brightness: 42 } });
  need(!set.isError, `set_light: ${textOf(set)}`);
  need(set.structuredContent?.light?.brightness === 42, `set_light answered ${JSON.stringify(set.structuredContent)}`);

  const ambiguous = await client.callTool({ name: "set_light", arguments: { light: "light", on: true } });
  need(ambiguous.isError === true, "an ambiguous name should be a tool error");
  const options = textOf(ambiguous);
  need(options.includes("Key Light") && options.includes("Fill Light"), `no options in: ${options}`);

  const home = await client.callTool({ name: "get_home_state", arguments: {} });
  need(!home.isError && home.structuredContent.lights.length === 6, "get_home_state");
  await client.close();

  const revoked = connect(env("BIFROST_REVOKED_KEY"));
  const before = statuses.length;
  let refused = false;
  try {
    await revoked.client.connect(revoked.transport);
  } catch (err) {
    need(err instanceof StreamableHTTPError || err?.name === "UnauthorizedError", `revoked key: ${err}`);
    refused = true;
  }
  // The status the hub really answered, not the one the error suggests.
  const status = statuses.slice(before)[0] ?? 0;
  need(refused && status === 401, `a revoked key: refused ${refused}, HTTP status ${status}`);

  return { version, tools: names.length, set: set.structuredContent.light, ambiguous: options, revoked: status };
});
