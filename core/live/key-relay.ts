// The person's keys on their way from their terminal to the host that `peerpost run` wraps: decoded as
// UTF-8 across reads (a character split between two reads reaches the host whole, not as two U+FFFD),
// followed by the input line, and held back while a delivery types a request and presses its Enter, so
// that no key of theirs lands inside the request or is submitted with it.
import { StringDecoder } from "node:string_decoder";
import type { InputLine } from "./keystrokes.js";

export class KeyRelay {
  private readonly decoder = new StringDecoder("utf8");
  private held: Buffer[] | undefined;

  constructor(
    private readonly input: InputLine,
    private readonly write: (data: Buffer) => void,
  ) {}

  /** One read of the person's terminal. */
  keys(data: Buffer): void {
    // The host gets the bytes as they came (not every terminal sends UTF-8); only the line follows the decoded text.
    const text = this.decoder.write(data);
    if (text !== "") this.input.observe(text);
    if (this.held) this.held.push(data);
    else this.write(data);
  }

  /** Holds the person's keys (the input line still follows them) until the returned release passes them on, in order. */
  hold(): () => void {
    this.held ??= [];
    return () => {
      const keys = this.held ?? [];
      this.held = undefined;
      for (const data of keys) this.write(data);
    };
  }
}
