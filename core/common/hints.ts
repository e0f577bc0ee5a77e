// Hints in the reader's language. A model reads them after an MCP tool call and acts with tools and
// their arguments; a person reads them after a `peerpost` command and acts with commands and flags.
// An error carries both; the server shows `model`, the command line shows `cli`.

export type Audience = "model" | "cli";

export interface Hint {
  model: string;
  cli: string;
}

export const HINTS = {
  unknownMessage: {
    model: "Use a message id from message, read, wait or receipts results; you can only see messages you sent or received.",
    cli: "Message ids appear in `peerpost inbox ADDR --all` and `peerpost tail --from-start`.",
  },
  unknownSession: {
    model: "Call `agents` (includeUnseen lists sessions from the hosts' own files too) and use an address exactly as it appears there. A session becomes known when its host starts with the peerpost plugin, or at its first peerpost tool call.",
    cli: "Run `peerpost agents --all` (it lists sessions from the hosts' own files too) and use an address exactly as it appears there. A session becomes known when its host starts with the peerpost plugin.",
  },
  noRoleHolder: {
    model: "Call `agents` to see live sessions and their roles, then message one by its exact address. A session takes roles from PEERPOST_ROLES, or from `peerpost role set`.",
    cli: "Run `peerpost roles` or `peerpost agents` to see who holds which role, then send to one by its exact address. A session takes roles from PEERPOST_ROLES, or from `peerpost role set NAME ADDR`.",
  },
  ambiguousRole: { model: "Message one of the candidates by its exact address.", cli: "Send to one of the candidates by its exact address (--to ADDR)." },
  badAddress: {
    model: "Use claude:<id>, codex:<id>, copilot:<id>, grok:<id>, role:<name> or user:<name>; ids are letters, digits, '.', '_' and '-' (up to 128). The `agents` tool lists live sessions.",
    cli: "Use claude:<id>, codex:<id>, copilot:<id>, grok:<id>, role:<name> or user:<name>; ids are letters, digits, '.', '_' and '-' (up to 128). `peerpost agents` lists live sessions.",
  },
  selfSend: {
    model: "Pick another session from `agents`, or pass allowSelf: true if you really mean to message yourself.",
    cli: "Pick another address from `peerpost agents`, or add --allow-self if you really mean to message yourself.",
  },
  alreadyResolved: {
    model: "Nothing more to do for it. To add something, send a new message with replyToMessageId.",
    cli: "Nothing more to do for it. To add something: peerpost send --from ADDR --to ADDR --reply-to ID TEXT.",
  },
  roleMoved: {
    model: "The role moved to another holder, who now has the message as new mail. `roles` shows who holds each role.",
    cli: "The role moved to another holder, who now has the message as new mail. `peerpost roles` shows who holds each role.",
  },
  wrongRecipient: {
    model: "Use `wait` or `status` to follow a message you sent; `reply` is for messages in your own inbox.",
    cli: "Follow a message you sent with `peerpost status ID`; `peerpost reply` is for messages in the --as address's own inbox.",
  },
  lastHop: {
    model: "Send it with anticipation fyi, or start a new conversation (no replyToMessageId) if a person asked for more: a message without it still continues the recipient's open request you read, and for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) the one you answered, closed or declined. PEERPOST_MAX_HOPS sets the budget.",
    cli: "Send it with --anticipation fyi, or start a new conversation (no --reply-to) if a person asked for more: a message without it still continues the recipient's open request you read, and for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) the one you answered, closed or declined. PEERPOST_MAX_HOPS sets the budget.",
  },
  // Without replyToMessageId the send continued a conversation on its own: "no replyToMessageId" is no way out then.
  lastHopContinued: {
    model: "Send it with anticipation fyi, or answer first. This message had no replyToMessageId, yet it continues the conversation (details.continues): a message to the same recipient does so while you hold its open request you read, or for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) after you answered, closed or declined one, counted from your last message to it since (a note after the answer continues the conversation too). Resolve that request with reply first; a new conversation starts only after that. PEERPOST_MAX_HOPS sets the budget.",
    cli: "Send it with --anticipation fyi, or answer first. This message had no --reply-to, yet it continues the conversation (details.continues): a message to the same recipient does so while you hold its open request you read, or for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) after you answered, closed or declined one, counted from your last message to it since (a note after the answer continues the conversation too). Resolve that request with `peerpost reply` first; a new conversation starts only after that. PEERPOST_MAX_HOPS sets the budget.",
  },
  hopsUsed: {
    model: "Stop the exchange here, or start a new conversation (no replyToMessageId) if a person asked for more. PEERPOST_MAX_HOPS sets the budget.",
    cli: "Stop the exchange here, or start a new conversation (no --reply-to) if a person asked for more. PEERPOST_MAX_HOPS sets the budget.",
  },
  // Without replyToMessageId the send continued a conversation on its own: "no replyToMessageId" is no way out then.
  hopsUsedContinued: {
    model: "Stop the exchange here. This message had no replyToMessageId, yet it continues the conversation (details.continues): a message to the same recipient does so while you hold its open request you read, or for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) after you answered, closed or declined one, counted from your last message to it since (a note after the answer continues the conversation too). A new conversation starts only after that. PEERPOST_MAX_HOPS sets the budget.",
    cli: "Stop the exchange here. This message had no --reply-to, yet it continues the conversation (details.continues): a message to the same recipient does so while you hold its open request you read, or for a turn's length (PEERPOST_WAKE_TIMEOUT_MS) after you answered, closed or declined one, counted from your last message to it since (a note after the answer continues the conversation too). A new conversation starts only after that. PEERPOST_MAX_HOPS sets the budget.",
  },
  replyNeedsText: {
    model: "Pass message: the text of your reply, or use resolution decline/done.",
    cli: "Give the text with --reply TEXT, or use --decline REASON or --done.",
  },
} satisfies Record<string, Hint>;

/** The hint for one reader; a plain string reads the same for both. */
export function hintFor(hint: string | Hint | undefined, audience: Audience): string | undefined {
  return hint === undefined || typeof hint === "string" ? hint : hint[audience];
}
