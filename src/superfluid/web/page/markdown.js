// superfluid chat page: a small, safe Markdown renderer (no dependencies).
// All source text is HTML-escaped before any markup is added; links are kept
// only for http(s) addresses. Supported: paragraphs, headings, emphasis,
// strikethrough, inline code, fenced code blocks (highlighted), lists,
// blockquotes, tables, horizontal rules and links.
'use strict';
(function (root) {
  const { highlight, escapeHtml } = root.superfluidHighlight;

  const FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
  const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
  const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  const QUOTE = /^ {0,3}> ?(.*)$/;
  const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
  const TABLE_SEP = /^ *\|? *:?-+:? *(?:\| *:?-+:? *)*\|? *$/;

  const indentOf = (line) => line.length - line.trimStart().length;
  const isTableStart = (lines, i) => i + 1 < lines.length && lines[i].includes('|') &&
    TABLE_SEP.test(lines[i + 1]) && (lines[i + 1].includes('|') || lines[i].trim().startsWith('|'));
  const startsBlock = (lines, i) => {
    const l = lines[i];
    return FENCE.test(l) || HEADING.test(l) || HR.test(l) || QUOTE.test(l) || ITEM.test(l) || isTableStart(lines, i);
  };

  // ---- inline ----------------------------------------------------------------
  function inline(src) {
    const stash = [];
    const put = (html) => `\u0000${stash.push(html) - 1}\u0000`;
    const link = (url, text) =>
      put(`<a href="${url}" target="_blank" rel="noopener noreferrer">${text}</a>`);
    let s = escapeHtml(src);
    // code spans first: their content is literal
    s = s.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, ticks, code) => {
      const body = /^ [\s\S]* $/.test(code) && code.trim() ? code.slice(1, -1) : code;
      return put(`<code>${body}</code>`);
    });
    // backslash escapes
    s = s.replace(/\\([\\`*_{}[\]()#+\-.!|~])/g, (_, c) => put(c));
    // [text](http(s)://url "title") and ![alt](url) (images become links)
    s = s.replace(
      /!?\[([^\]\n]*)\]\((https?:\/\/[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:[ \t]+&quot;[^\n]*?&quot;)?\)/g,
      (_, text, url) => link(url, emphasis(text) || url));
    // <http(s)://url>
    s = s.replace(/&lt;(https?:\/\/[^\s&]*(?:&amp;[^\s&]*)*)&gt;/g, (_, url) => link(url, url));
    // bare http(s) addresses
    s = s.replace(
      /(^|[^\w/\u0000])(https?:\/\/[^\s\u0000]+?)(?=[.,;:!?)\]*_]*(?:\s|$|&lt;|&gt;|&quot;|&#39;|\u0000))/g,
      (_, pre, url) => pre + link(url, url));
    s = emphasis(s).replace(/\n/g, '<br>');
    for (let n = 0; n < 8 && s.includes('\u0000'); n++) {
      s = s.replace(/\u0000(\d+)\u0000/g, (_, i) => stash[Number(i)]);
    }
    return s;
  }

  function emphasis(s) {
    return s
      .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
      .replace(/\*(?=[^\s*])([^*\n]*?[^\s*])\*/g, '<em>$1</em>')
      .replace(/(^|[^\w])_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>')
      .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>');
  }

  // ---- blocks ----------------------------------------------------------------
  function codeBlock(code, lang) {
    const name = lang.toLowerCase().replace(/[^\w+#.-]/g, '');
    const cls = name ? ` class="language-${escapeHtml(name)}"` : '';
    return '<div class="code-block"><div class="code-header">' +
      `<span class="code-lang">${escapeHtml(lang || 'text')}</span>` +
      '<button type="button" class="code-copy" aria-label="Copy code">Copy</button></div>' +
      `<pre><code${cls}>${highlight(code, name)}</code></pre></div>`;
  }

  function splitRow(line) {
    let t = line.trim();
    if (t.startsWith('|')) t = t.slice(1);
    if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
    return t.split(/(?<!\\)\|/).map((c) => c.trim());
  }

  function table(lines, i) {
    const head = splitRow(lines[i]);
    const aligns = splitRow(lines[i + 1]).map((c) =>
      c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : '');
    const cell = (tag, text, k) =>
      `<${tag}${aligns[k] ? ` class="align-${aligns[k]}"` : ''}>${inline(text || '')}</${tag}>`;
    let html = '<div class="table-wrap"><table><thead><tr>' +
      head.map((c, k) => cell('th', c, k)).join('') + '</tr></thead><tbody>';
    i += 2;
    while (i < lines.length && lines[i].trim() && lines[i].includes('|')) {
      const row = splitRow(lines[i]);
      html += '<tr>' + head.map((_, k) => cell('td', row[k], k)).join('') + '</tr>';
      i++;
    }
    return [html + '</tbody></table></div>', i];
  }

  function list(lines, i) {
    const first = ITEM.exec(lines[i]);
    const base = first[1].length;
    const ordered = /\d/.test(first[2]);
    const start = ordered ? parseInt(first[2], 10) : 1;
    const items = [];
    let loose = false;
    while (i < lines.length) {
      const m = ITEM.exec(lines[i]);
      if (!m || m[1].length < base || m[1].length > base + 3 || /\d/.test(m[2]) !== ordered) break;
      const contentIndent = m[1].length + m[2].length + 1;
      const body = [m[3] || ''];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        if (!l.trim()) {
          let j = i + 1;
          while (j < lines.length && !lines[j].trim()) j++;
          if (j < lines.length && indentOf(lines[j]) > base && !(ITEM.test(lines[j]) && indentOf(lines[j]) <= base + 1)) {
            while (i < j) { body.push(''); i++; }
            loose = true;
            continue;
          }
          break;
        }
        const ind = indentOf(l);
        if (ind > base + 1 || (ind > base && !ITEM.test(l))) {
          body.push(l.slice(Math.min(ind, contentIndent)));
          i++;
          continue;
        }
        if (startsBlock(lines, i)) break;
        body.push(l.trim());
        i++;
      }
      items.push(body);
      let j = i;
      while (j < lines.length && !lines[j].trim()) j++;
      if (j > i && j < lines.length) {
        const n = ITEM.exec(lines[j]);
        if (n && n[1].length >= base && n[1].length <= base + 3 && /\d/.test(n[2]) === ordered) {
          loose = true;
          i = j;
          continue;
        }
      }
      if (j > i) break;
    }
    const tag = ordered ? 'ol' : 'ul';
    const attr = ordered && start !== 1 ? ` start="${start}"` : '';
    const html = `<${tag}${attr}>` + items.map((b) => `<li>${blocks(b, !loose)}</li>`).join('') + `</${tag}>`;
    return [html, i];
  }

  function blocks(lines, tight) {
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (!line.trim()) { i++; continue; }
      if ((m = FENCE.exec(line))) {
        const indent = m[1].length;
        const fence = m[2];
        const body = [];
        i++;
        while (i < lines.length) {
          const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i]);
          if (close && close[1][0] === fence[0] && close[1].length >= fence.length) { i++; break; }
          body.push(lines[i].slice(Math.min(indent, indentOf(lines[i]))));
          i++;
        }
        out.push(codeBlock(body.join('\n'), m[3]));
      } else if ((m = HEADING.exec(line))) {
        const n = m[1].length;
        out.push(`<h${n}>${inline(m[2] || '')}</h${n}>`);
        i++;
      } else if (HR.test(line)) {
        out.push('<hr>');
        i++;
      } else if (QUOTE.test(line)) {
        const inner = [];
        while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i++; }
        out.push(`<blockquote>${blocks(inner, false)}</blockquote>`);
      } else if (ITEM.test(line)) {
        const [html, next] = list(lines, i);
        out.push(html);
        i = next;
      } else if (isTableStart(lines, i)) {
        const [html, next] = table(lines, i);
        out.push(html);
        i = next;
      } else {
        const para = [line.trim()];
        i++;
        while (i < lines.length && lines[i].trim() && !startsBlock(lines, i)) { para.push(lines[i].trim()); i++; }
        const html = inline(para.join('\n'));
        out.push(tight ? html : `<p>${html}</p>`);
      }
    }
    return out.join(tight ? '\n' : '');
  }

  function render(src) {
    const lines = String(src || '')
      .replace(/\r\n?/g, '\n')
      .replace(/\u0000/g, '\uFFFD')
      .split('\n')
      .map((l) => l.replace(/^\t+/, (t) => '    '.repeat(t.length)));
    return blocks(lines, false);
  }

  root.superfluidMarkdown = { render, inline };
})(globalThis);
