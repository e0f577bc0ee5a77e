// Markdown, which agents write, shown as formatting: parsed by marked's lexer into tokens, then built
// into elements one by one with every string as a text node. No HTML string is ever parsed (the CSP's
// Trusted Types would refuse it): raw HTML in a body stays text, links go only to http(s) and mailto,
// and images show as links (the page loads nothing from anywhere else).
import { Lexer, type Token, type Tokens } from "marked";
import { el, type Child } from "./dom.js";

const SAFE_LINK = /^(https?:|mailto:)/i;

function link(href: string, children: Child[]): Child {
  if (!SAFE_LINK.test(href)) return el("span", null, ...children);
  const anchor = el("a", null, ...children);
  anchor.href = href;
  anchor.rel = "noopener noreferrer";
  anchor.target = "_blank";
  return anchor;
}

function inline(tokens: Token[] | undefined): Child[] {
  return (tokens ?? []).map((token) => inlineToken(token as Tokens.Generic));
}

function inlineToken(token: Tokens.Generic): Child {
  switch (token.type) {
    case "strong":
      return el("strong", null, ...inline(token.tokens));
    case "em":
      return el("em", null, ...inline(token.tokens));
    case "del":
      return el("del", null, ...inline(token.tokens));
    case "codespan":
      return el("code", null, token.text as string);
    case "br":
      return el("br", null);
    case "link":
      return link(token.href as string, inline(token.tokens));
    case "image":
      return link(token.href as string, [`[image: ${token.text as string}]`]);
    case "text":
      return token.tokens ? el("span", null, ...inline(token.tokens)) : (token.text as string);
    case "escape":
      return token.text as string;
    default:
      // Raw HTML (tags and blocks) and anything unknown: the source, as text.
      return token.raw;
  }
}

function block(token: Tokens.Generic): Child {
  switch (token.type) {
    case "paragraph":
      return el("p", null, ...inline(token.tokens));
    case "heading":
      return el(`h${Math.min(6, Math.max(3, (token.depth as number) + 2))}` as "h3", null, ...inline(token.tokens));
    case "code":
      return el("pre", null, el("code", null, token.text as string));
    case "blockquote":
      return el("blockquote", null, ...(token.tokens ?? []).map((child) => block(child as Tokens.Generic)));
    case "list": {
      const list = el((token.ordered as boolean) ? "ol" : "ul", null, ...(token.items as Tokens.ListItem[]).map((item) => el("li", null, ...item.tokens.map((child) => (child.type === "text" ? inlineToken(child as Tokens.Generic) : block(child as Tokens.Generic))))));
      if (token.ordered && typeof token.start === "number") (list as HTMLOListElement).start = token.start;
      return list;
    }
    case "table": {
      const table = token as unknown as Tokens.Table;
      return el("table", null, el("thead", null, el("tr", null, ...table.header.map((cell) => el("th", null, ...inline(cell.tokens))))), el("tbody", null, ...table.rows.map((row) => el("tr", null, ...row.map((cell) => el("td", null, ...inline(cell.tokens)))))));
    }
    case "hr":
      return el("hr", null);
    case "space":
      return null;
    case "text":
      return el("p", null, ...(token.tokens ? inline(token.tokens) : [token.text as string]));
    default:
      // Raw HTML blocks and anything unknown: the source, as text.
      return el("p", null, token.raw);
  }
}

/**
 * The body as elements: markdown formatting, with every string a text node. A body the lexer cannot take
 * (nesting deep enough to overflow its recursion: 2,000 `>` do) is shown as its text, and the page goes on.
 */
export function renderMarkdown(text: string): Child[] {
  try {
    return new Lexer({ gfm: true }).lex(text).map((token) => block(token as Tokens.Generic));
  } catch {
    return [el("p", null, text)];
  }
}
