// count_words: the Skill Tools handler contract — a default export that
// receives the arguments (plus __workDir) and returns a JSON value.
export default async function handler(args) {
  const { text = "", wpm = 200 } = args;
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  const lines = text === "" ? 0 : text.split("\n").length;
  return {
    words,
    lines,
    characters: [...text].length,
    reading_minutes: Math.ceil(words / wpm),
  };
}
