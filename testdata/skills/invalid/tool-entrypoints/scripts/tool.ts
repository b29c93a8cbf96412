export default async function handler(args: object) {
  return {};
}
