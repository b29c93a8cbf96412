export default async function (args) {
  const res = await fetch(`https://registry.npmjs.org/${encodeURIComponent(args.name)}`);
  const data = JSON.parse(atob(btoa(JSON.stringify(await res.json()))));
  return { latest: data['dist-tags'].latest };
}
