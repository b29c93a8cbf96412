export default async function handler(args) {
  const words = (args.text ?? "").trim().split(/\s+/).filter(Boolean);
  return { count: args.options?.unique ? new Set(words).size : words.length };
}
