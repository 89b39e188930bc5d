// superfluid chat page: a small code highlighter (no dependencies).
// highlight(code, lang) returns HTML: every piece of the source is escaped and
// only <span class="tok-..."> elements are added around keywords, strings,
// comments and numbers.
'use strict';
(function (root) {
  const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  const words = (list) => new Set(list.split(/\s+/).filter(Boolean));
  const DQ = String.raw`"(?:\\.|[^"\\\n])*"`;
  const SQ = String.raw`'(?:\\.|[^'\\\n])*'`;
  const BT = String.raw`\x60(?:\\[\s\S]|[^\x60\\])*\x60`;
  const C_COMMENT = String.raw`\/\/.*|\/\*[\s\S]*?(?:\*\/|$)`;
  const NUMBER = String.raw`\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z]*\b`;

  const LANGS = {
    python: {
      comment: '#.*',
      strings: [String.raw`"""[\s\S]*?(?:"""|$)`, String.raw`'''[\s\S]*?(?:'''|$)`, DQ, SQ],
      keywords: words(`and as assert async await break class continue def del elif else except finally for
        from global if import in is lambda nonlocal not or pass raise return try while with yield match case
        True False None self print len range`),
    },
    js: {
      comment: C_COMMENT,
      strings: [DQ, SQ, BT],
      keywords: words(`break case catch class const continue debugger default delete do else export extends
        finally for function if import in instanceof let new return super switch this throw try typeof var void
        while with yield async await of from as static get set true false null undefined NaN Infinity
        interface type enum implements private public protected readonly declare namespace abstract keyof
        string number boolean any unknown never`),
    },
    json: {
      strings: [DQ],
      keywords: words('true false null'),
      keys: true,
    },
    bash: {
      comment: String.raw`(?<![\w$#{])#.*`,
      strings: [DQ, SQ],
      keywords: words(`if then else elif fi for while until do done case esac in function return local export
        readonly declare unset shift exit set source alias echo printf cd test true false sudo`),
    },
    c: {
      comment: C_COMMENT,
      strings: [DQ, String.raw`'(?:\\.|[^'\\\n]){1,8}'`],
      keywords: words(`auto break case char const continue default do double else enum extern float for goto if
        inline int long register return short signed sizeof static struct switch typedef union unsigned void
        volatile while bool true false NULL nullptr class public private protected virtual override template
        typename namespace using new delete this throw try catch import package interface extends implements
        final abstract boolean byte super null fn let mut impl trait pub use mod match loop move ref self Self
        crate where as async await dyn func go chan defer select map range type var const fallthrough string
        int8 int16 int32 int64 uint8 uint32 uint64 i8 i16 i32 i64 u8 u16 u32 u64 usize isize f32 f64 String
        Vec Option Some None Ok Err val fun when object println`),
    },
  };

  const ALIASES = {
    python: 'python', py: 'python', python3: 'python', py3: 'python',
    js: 'js', javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', typescript: 'js', tsx: 'js', node: 'js',
    json: 'json', jsonc: 'json', json5: 'json', jsonl: 'json',
    bash: 'bash', sh: 'bash', shell: 'bash', zsh: 'bash', console: 'bash', shellsession: 'bash',
    c: 'c', h: 'c', cpp: 'c', 'c++': 'c', cc: 'c', cxx: 'c', hpp: 'c', java: 'c', go: 'c', golang: 'c',
    rust: 'c', rs: 'c', cs: 'c', csharp: 'c', 'c#': 'c', kotlin: 'c', kt: 'c', swift: 'c', scala: 'c',
    dart: 'c', cuda: 'c', cu: 'c',
  };

  const compiled = new Map();
  function grammar(lang) {
    const name = ALIASES[String(lang || '').toLowerCase()];
    if (!name) return null;
    if (!compiled.has(name)) {
      const g = LANGS[name];
      const never = '[^\\s\\S]';
      const re = new RegExp(
        `(${g.comment || never})|(${g.strings.join('|')})|(${NUMBER})|([A-Za-z_$][\\w$]*)`, 'g');
      compiled.set(name, { re, keywords: g.keywords, keys: !!g.keys });
    }
    return compiled.get(name);
  }

  const span = (cls, text) => `<span class="tok-${cls}">${escapeHtml(text)}</span>`;

  function highlight(code, lang) {
    const g = grammar(lang);
    if (!g) return escapeHtml(code);
    let out = '';
    let last = 0;
    g.re.lastIndex = 0;
    let m;
    while ((m = g.re.exec(code)) !== null) {
      if (m[0] === '') { g.re.lastIndex++; continue; }
      out += escapeHtml(code.slice(last, m.index));
      last = m.index + m[0].length;
      if (m[1] !== undefined) out += span('comment', m[0]);
      else if (m[2] !== undefined) {
        const isKey = g.keys && /^\s*:/.test(code.slice(last));
        out += span(isKey ? 'key' : 'string', m[0]);
      } else if (m[3] !== undefined) out += span('number', m[0]);
      else if (g.keywords.has(m[0])) out += span('keyword', m[0]);
      else out += escapeHtml(m[0]);
    }
    return out + escapeHtml(code.slice(last));
  }

  root.superfluidHighlight = { highlight, escapeHtml, supports: (lang) => grammar(lang) !== null };
})(globalThis);
