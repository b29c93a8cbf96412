export default async function handler(args) {
  const { text = "" } = args;
  return { count: text.trim().split(/\s+/).filter(Boolean).length };
}
