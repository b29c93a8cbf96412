export default async function handler(args) {
  return "hello";
}
