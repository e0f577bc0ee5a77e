// The page as served: its stylesheet inline (the CSP allows exactly it, by hash), this run's token in
// its asset URLs, and the state for the URL's filters inside it as JSON data (a script element of type
// application/json runs nothing), so the page is drawn at once, with no fetch before its first render.

/** The page's template with its stylesheet in place; `{{token}}` and `{{state}}` are filled per request. */
export function pageTemplate(html: string, css: string): string {
  return html.replace("{{style}}", () => css);
}

/** The page for one request; `stateJson` null lets the page fetch its state (and show why it failed). */
export function pageHtml(template: string, token: string, stateJson: string | null): string {
  // "<" escaped keeps any "</script>" or "<!--" in a body from ending the data block; JSON reads it back as "<".
  return template.replaceAll("{{token}}", token).replace("{{state}}", () => (stateJson ?? "null").replaceAll("<", "\\u003c"));
}
