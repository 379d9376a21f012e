// A small renderer for the markdown-ish text that replies arrive as: paragraphs, "- " and "1. "
// lists (nested by indentation), headings, fenced code, `code`, **strong**, *emphasis* and
// links.
//
// Reply text comes from a model and from the context service, so it is never parsed as HTML:
// every piece of it becomes a text node, and the only elements are the ones created here with
// createElement. A link is made only for an absolute http(s) URL; anything else (javascript:,
// data:, relative paths) stays plain text. Unclosed or unknown markup is shown as it came, which
// also keeps a reply that is still streaming readable.
'use strict';

(() => {
  // MAX_DEPTH bounds nested inline markup and lists, so that hostile text cannot make the
  // renderer recurse without end; deeper markup is shown as text.
  const MAX_DEPTH = 8;
  const MAX_LIST_DEPTH = 4;

  const el = (tag, ...children) => {
    const e = document.createElement(tag);
    e.append(...children);
    return e;
  };

  // safeURL returns the URL when it is absolute http or https, else null.
  function safeURL(raw) {
    let u;
    try { u = new URL(raw); } catch { return null; }
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  }

  function link(href, children) {
    const a = el('a', ...children);
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }

  const isSpace = (c) => c === undefined || /\s/.test(c);
  const isWordChar = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  const PUNCT = /[!-/:-@[-`{-~]/;

  // closer finds where emphasis opened with delimiter d ends, searching from from: a run of
  // the same character, after a non-space, as long as d or three long (the end of
  // "***both***"); "_" must not be followed by a letter (snake_case stays as it is). It returns
  // the index where the closing d starts, or -1. failed remembers the first position a search
  // for d failed from, so that a long run of unmatched "*" costs linear time, not quadratic.
  function closer(text, d, from, failed) {
    if (failed[d] !== undefined && from >= failed[d]) return -1;
    const c = d[0];
    for (let j = text.indexOf(c, from); j !== -1;) {
      let k = j;
      while (text[k] === c) k++;
      const run = k - j;
      if (!isSpace(text[j - 1]) && (run === d.length || run === 3) && !(c === '_' && isWordChar(text[k]))) {
        return k - d.length;
      }
      j = text.indexOf(c, k);
    }
    failed[d] = from;
    return -1;
  }

  // LABEL_MAX and URL_MAX bound how far a link's label and target are looked for, so that a
  // long run of "[" or "(" costs a bounded scan per character.
  const LABEL_MAX = 512;
  const URL_MAX = 2048;

  // matchingBracket returns the index of the "]" that closes the "[" at i, or -1.
  function matchingBracket(text, i) {
    let depth = 0;
    for (let j = i; j < text.length && j < i + LABEL_MAX; j++) {
      const c = text[j];
      if (c === '\\') j++;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return j;
      else if (c === '\n') return -1;
    }
    return -1;
  }

  // matchingParen returns the index of the ")" that closes the "(" at i, or -1. A link target
  // has no spaces.
  function matchingParen(text, i) {
    let depth = 0;
    for (let j = i; j < text.length && j < i + URL_MAX; j++) {
      const c = text[j];
      if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return j;
      else if (isSpace(c)) return -1;
    }
    return -1;
  }

  const BARE_URL = new RegExp(`https?://[^\\s<>"]{1,${URL_MAX}}`, 'iy');

  // inline appends the nodes of one block's text to parent. inLink keeps links out of links.
  function inline(text, parent, depth, inLink) {
    let plain = '';
    const flush = () => { if (plain) { parent.append(document.createTextNode(plain)); plain = ''; } };
    const nested = (tag, inner) => {
      flush();
      const e = document.createElement(tag);
      inline(inner, e, depth + 1, inLink);
      parent.append(e);
    };
    const deep = depth >= MAX_DEPTH;
    const failed = {};

    for (let i = 0; i < text.length;) {
      const c = text[i];
      if (c === '\\' && PUNCT.test(text[i + 1] ?? '')) {
        plain += text[i + 1];
        i += 2;
        continue;
      }
      if (c === '\n') {
        flush();
        parent.append(document.createElement('br'));
        i++;
        continue;
      }
      if (c === '`') {
        const end = text.indexOf('`', i + 1);
        if (end > i + 1) {
          flush();
          parent.append(el('code', text.slice(i + 1, end)));
          i = end + 1;
          continue;
        }
      }
      if (!deep && (c === '*' || c === '_')) {
        const d = text[i + 1] === c ? c + c : c;
        const opens = !isSpace(text[i + d.length]) && !(c === '_' && isWordChar(text[i - 1]));
        const end = opens ? closer(text, d, i + d.length + 1, failed) : -1;
        if (end !== -1) {
          nested(d.length === 2 ? 'strong' : 'em', text.slice(i + d.length, end));
          i = end + d.length;
          continue;
        }
        plain += d;
        i += d.length;
        continue;
      }
      if (!deep && c === '[') {
        const close = matchingBracket(text, i);
        if (close !== -1 && text[close + 1] === '(') {
          const end = matchingParen(text, close + 1);
          if (end !== -1) {
            const label = text.slice(i + 1, close);
            const href = inLink ? null : safeURL(text.slice(close + 2, end));
            flush();
            if (href) {
              const a = link(href, []);
              inline(label, a, depth + 1, true);
              parent.append(a);
            } else {
              inline(label, parent, depth + 1, inLink); // the label alone, without its target
            }
            i = end + 1;
            continue;
          }
        }
      }
      if (!inLink && (c === 'h' || c === 'H') && !isWordChar(text[i - 1])) {
        BARE_URL.lastIndex = i;
        const m = BARE_URL.exec(text);
        if (m) {
          const raw = m[0].replace(/[.,;:!?'")\]]+$/, '');
          const href = safeURL(raw);
          if (href) {
            flush();
            parent.append(link(href, [raw]));
            i += raw.length;
            continue;
          }
        }
      }
      plain += c;
      i++;
    }
    flush();
  }

  const FENCE = /^\s*(```|~~~)/;
  const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;

  // render returns a DocumentFragment for text.
  function render(text) {
    const out = document.createDocumentFragment();
    const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
    let para = null; // lines of the open paragraph
    let lists = []; // open lists, outermost first: { indent, list, item, lines }

    const closeItem = (l) => {
      if (l.lines) inline(l.lines.join('\n'), l.item, 1, false);
      l.lines = null;
    };
    const closePara = () => {
      if (para) out.append(blockOf('p', para.join('\n')));
      para = null;
    };
    const closeLists = () => {
      for (let k = lists.length - 1; k >= 0; k--) closeItem(lists[k]);
      lists = [];
    };
    const blockOf = (tag, s) => {
      const e = document.createElement(tag);
      inline(s, e, 1, false);
      return e;
    };

    for (let n = 0; n < lines.length; n++) {
      const line = lines[n];
      if (FENCE.test(line)) {
        closePara();
        closeLists();
        const fence = FENCE.exec(line)[1];
        const body = [];
        for (n++; n < lines.length && !lines[n].trimStart().startsWith(fence); n++) body.push(lines[n]);
        out.append(el('pre', el('code', body.join('\n'))));
        continue;
      }
      if (!line.trim()) {
        closePara();
        closeLists();
        continue;
      }
      const h = HEADING.exec(line);
      if (h) {
        closePara();
        closeLists();
        const p = el('p', blockOf('strong', h[2]));
        p.className = 'heading';
        out.append(p);
        continue;
      }
      const m = ITEM.exec(line);
      if (m) {
        closePara();
        const indent = m[1].replace(/\t/g, '    ').length;
        const tag = /\d/.test(m[2]) ? 'ol' : 'ul';
        while (lists.length && lists[lists.length - 1].indent > indent) {
          closeItem(lists[lists.length - 1]);
          lists.pop();
        }
        let top = lists[lists.length - 1];
        if (top && indent > top.indent && lists.length < MAX_LIST_DEPTH) {
          // A deeper item opens a list inside the current item.
          closeItem(top);
          const list = document.createElement(tag);
          top.item.append(list);
          top = { indent, list, item: null, lines: null };
          lists.push(top);
        } else if (!top || top.list.tagName.toLowerCase() !== tag) {
          if (top) closeItem(top);
          const list = document.createElement(tag);
          if (lists.length > 1) lists[lists.length - 2].item.append(list);
          else out.append(list);
          top = { indent: top ? top.indent : indent, list, item: null, lines: null };
          lists[Math.max(0, lists.length - 1)] = top;
        } else {
          closeItem(top);
        }
        if (tag === 'ol' && !top.list.childElementCount) {
          const start = parseInt(m[2], 10);
          if (start !== 1) top.list.start = start;
        }
        top.item = document.createElement('li');
        top.list.append(top.item);
        top.lines = [m[3]];
        continue;
      }
      const top = lists[lists.length - 1];
      if (top && /^\s/.test(line)) { // an indented line continues the item above it
        top.lines.push(line.trim());
        continue;
      }
      closeLists();
      (para ??= []).push(line);
    }
    closePara();
    closeLists();
    return out;
  }

  window.switchboardMarkdown = { render };
})();
