// A figure's Sentence box: its text is taken once the reader pauses typing, or at once on Enter.

/** Call `take(text)` with the box's trimmed text (possibly empty) `delay` ms after the last keystroke, or
 * straight away when the reader presses Enter; a newer keystroke cancels a pending call. */
export function watchSentence(input, take, delay) {
  let timer = null;
  const later = (wait) => {
    clearTimeout(timer);
    timer = setTimeout(() => take(input.value.trim()), wait);
  };
  input.addEventListener("input", () => later(delay));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      later(0);
    }
  });
}
