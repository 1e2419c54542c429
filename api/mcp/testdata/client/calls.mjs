// The official TypeScript SDK client over Streamable HTTP, calling the
// tools BIFROST_CALLS lists ([{name, arguments}], in order) and printing
// what each answered: {isError, text, structured}. The caller checks the
// answers; this script fails only when the client itself does (a
// structuredContent that does not match the tool's outputSchema, a
// transport error).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { env, main, textOf } from "./check.mjs";

main(async () => {
  const url = new URL("/mcp", env("BIFROST_URL"));
  const calls = JSON.parse(env("BIFROST_CALLS"));
  const client = new Client({ name: "bifrost-ts-sdk-calls", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${env("BIFROST_KEY")}` } },
  });
  await client.connect(transport);
  const out = [];
  for (const call of calls) {
    const res = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
    out.push({ isError: res.isError === true, text: textOf(res), structured: res.structuredContent ?? null });
  }
  await client.close();
  return out;
});
