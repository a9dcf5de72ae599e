// The language server's documentation (Markdown) as DOM nodes, for hover and completion: paragraphs,
// lists, fenced code, `code`, **bold**, *italic* and [links](url) shown as their text. Built node by
// node (no HTML is parsed: a description cannot inject markup), the subset the server writes.

/** Inline Markdown as nodes: `code`, **bold**, *italic* or _italic_, [text](url) as its text. */
export function inlineNodes(text: string): Node[] {
  const nodes: Node[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) nodes.push(document.createTextNode(text.slice(last, at)));
    const [, code, bold, italic, underscored, linkText] = match;
    let element: HTMLElement;
    if (code !== undefined) {
      element = document.createElement('code');
      element.textContent = code;
    } else if (bold !== undefined) {
      element = document.createElement('strong');
      element.append(...inlineNodes(bold));
    } else if (italic !== undefined || underscored !== undefined) {
      element = document.createElement('em');
      element.append(...inlineNodes(italic ?? underscored ?? ''));
    } else {
      element = document.createElement('span');
      element.textContent = linkText ?? '';
    }
    nodes.push(element);
    last = at + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/** Block Markdown as a fragment: blank-line paragraphs, `-`/`*` and `1.` lists, fenced code blocks. */
export function markdownFragment(markdown: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (line.trim() === '') {
      index += 1;
      continue;
    }
    if (line.startsWith('```')) {
      const code: string[] = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? '').startsWith('```')) code.push(lines[index++] ?? '');
      index += 1;
      const pre = document.createElement('pre');
      const element = document.createElement('code');
      element.textContent = code.join('\n');
      pre.append(element);
      fragment.append(pre);
      continue;
    }
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/;
    if (item.test(line)) {
      const list = document.createElement(/^\s*\d+\./.test(line) ? 'ol' : 'ul');
      while (index < lines.length && item.test(lines[index] ?? '')) {
        const li = document.createElement('li');
        li.append(...inlineNodes(item.exec(lines[index] ?? '')?.[1] ?? ''));
        list.append(li);
        index += 1;
      }
      fragment.append(list);
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && (lines[index] ?? '').trim() !== '' && !(lines[index] ?? '').startsWith('```') && !item.test(lines[index] ?? '')) paragraph.push(lines[index++] ?? '');
    const p = document.createElement('p');
    p.append(...inlineNodes(paragraph.join(' ')));
    fragment.append(p);
  }
  return fragment;
}
