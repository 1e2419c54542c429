// The official TypeScript SDK client over Streamable HTTP, at the path
// BIFROST_PATH (default /mcp): it lists the tools, calls those
// BIFROST_CALLS lists ([{name, arguments}], in order) and prints the
// server's name, the tools' names and what each call answered:
// {server, tools, answers: [{isError, text, structured}]}. The caller
// checks them; this script fails only when the client itself does (a
// structuredContent that does not match the tool's outputSchema, a
// transport error).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { env, main, textOf } from "./check.mjs";

main(async () => {
  const url = new URL(process.env.BIFROST_PATH || "/mcp", env("BIFROST_URL"));
  const calls = JSON.parse(env("BIFROST_CALLS"));
  const client = new Client({ name: "bifrost-ts-sdk-calls", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${env("BIFROST_KEY")}` } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const answers = [];
  for (const call of calls) {
    const res = await client.callTool({ name: call.name, arguments: call.arguments ?? {} });
    answers.push({ isError: res.isError === true, text: textOf(res), structured: res.structuredContent ?? null });
  }
  await client.close();
  return { server: client.getServerVersion()?.name ?? "", tools: tools.map((t) => t.name), answers };
});
