/** Comments kept by the formatter, by the JSON pointer of the line they belong to. */
export interface AttachedComments {
  /** Whole-line comments printed above the line of the pointer. */
  leading: string[];
  /** A comment printed at the end of the line of the pointer. */
  trailing: string[];
}

export type CommentMap = ReadonlyMap<string, AttachedComments>;

const INDENT = '  ';

/** Collects printed lines, placing each pointer's comments around its line. */
export class Out {
  private readonly lines: string[] = [];
  private readonly used = new Set<string>();

  constructor(private readonly comments: CommentMap = new Map()) {}

  line(depth: number, text: string, pointers: readonly string[] = []): void {
    const pad = INDENT.repeat(depth);
    const trailing: string[] = [];
    for (const pointer of pointers) {
      const attached = this.comments.get(pointer);
      if (attached === undefined || this.used.has(pointer)) continue;
      this.used.add(pointer);
      for (const comment of attached.leading) this.lines.push(pad + comment);
      trailing.push(...attached.trailing);
    }
    this.lines.push(pad + text + (trailing.length > 0 ? `  ${trailing.join(' ')}` : ''));
  }

  /** The text, with comments whose line was not printed at the end. */
  text(): string {
    for (const [pointer, attached] of this.comments) {
      if (this.used.has(pointer)) continue;
      this.lines.push(...attached.leading, ...attached.trailing);
    }
    return `${this.lines.join('\n')}\n`;
  }
}
