// Small assertions shared by the client scripts: each script prints one
// JSON line of what it saw and exits non-zero on the first surprise.

export function need(cond, what) {
  if (!cond) {
    throw new Error(what);
  }
}

export function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

export async function main(fn) {
  try {
    const seen = await fn();
    console.log(JSON.stringify(seen));
    process.exit(0);
  } catch (err) {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  }
}

export function env(name) {
  const v = process.env[name];
  need(v, `${name} is not set`);
  return v;
}
