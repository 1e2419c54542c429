// The official TypeScript SDK's client for the legacy HTTP+SSE transport:
// GET /sse, then POST /message, behind the same key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { env, main, need, textOf } from "./check.mjs";

main(async () => {
  const client = new Client({ name: "bifrost-ts-sse-test", version: "1.0.0" });
  const transport = new SSEClientTransport(new URL("/sse", env("BIFROST_URL")), {
    requestInit: { headers: { Authorization: `Bearer ${env("BIFROST_KEY")}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  need(tools.length > 20, `tools: ${tools.length}`);
  const set = await client.callTool({ name: "set_light", arguments: { light: "Ceiling Light", kelvin: 3000 } });
  need(!set.isError, `set_light: ${textOf(set)}`);
  const power = await client.callTool({ name: "list_power_devices", arguments: {} });
  need(power.structuredContent.power.length === 3, "list_power_devices");
  await client.close();
  return { tools: tools.length, set: textOf(set) };
});
