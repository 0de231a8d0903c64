// Runs before first paint (a classic, blocking script): applies the theme the reader chose earlier, if any, so
// the page never flashes the other one. Without a choice the page follows prefers-color-scheme.
try {
  const theme = window.localStorage.getItem("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
} catch {
  // Storage can be off (private windows, strict settings): the system's scheme then rules.
}
