'use strict'

const { escapeHtml } = require('./escape')

// The one page every HTML report of nodebench is (the breakdown the middleware serves, the CLI's reports):
// self-contained (inline style, charts as inline SVG; no script, font or request leaves the file), a title, a
// line under it, a navigation bar when there are sections to reach, the sections. Every string is escaped here;
// the body's fragments come escaped from the renderers that made them.

const STYLE = `
:root{--fail:#b3261e;--warn:#8a5a00;--muted:#5f6368;--line:#e2e2e2}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#202124;background:#fafafa;line-height:1.45}
main{max-width:1280px;margin:0 auto;padding:1.5rem 2rem 3rem}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}
h3{font-size:1.05rem;margin-top:1.6rem}
.headline{color:var(--muted);margin:.2rem 0 1rem}
nav{font-size:.9rem;margin-bottom:1rem}nav a{margin-right:.9rem;color:#1a5fb4}
ul.findings li{margin:.35rem 0}
ul.notes{padding-left:1.2rem}ul.notes li{margin:.3rem 0}
li.failed,tr.failed td{color:var(--fail)}li.failed strong,td.status-failed{font-weight:700;color:var(--fail)}
tr.warn td{background:#fff6e0}
.study{color:var(--muted)}
.charts{display:flex;flex-wrap:wrap;gap:1rem}
figure.chart{margin:0;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.5rem;max-width:100%;overflow-x:auto}
figure.chart svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted);max-width:460px;margin-top:.3rem}
.left-out{color:var(--fail)}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;background:#fff;font-size:.88rem}
th,td{padding:.25rem .55rem;border-bottom:1px solid var(--line);text-align:right;font-variant-numeric:tabular-nums;vertical-align:top}
th{background:#f1f3f4}
td{white-space:nowrap}
td.text,th.text{text-align:left}
td.text,td.message{white-space:normal}
td.message,td.status-failed{text-align:left}
tr.study td{color:var(--muted);border-bottom:2px solid var(--line)}
td.bar{width:10rem}td.bar span{display:block;height:.75rem;background:#4c78a8}
.scroll{overflow-x:auto}
`

/** A section of a page: `<h2>` `title`, then `body` (HTML). */
function section (id, title, body) {
  return `<section id="${escapeHtml(id)}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`
}

/**
 * The whole page: `title` (its <title> and <h1>), `headline` under it, links to `nav` ([{ id, title }]) when
 * given, then `body`; `style`: CSS of the body's own parts (a waterfall's), after the shell's.
 */
function htmlPage ({ title, headline, nav = [], body, style = '' }) {
  const links = nav.length === 0 ? '' : `<nav>${nav.map(({ id, title }) => `<a href="#${escapeHtml(id)}">${escapeHtml(title)}</a>`).join('')}</nav>\n`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${style}</style></head><body><main>
<header><h1>${escapeHtml(title)}</h1>
<p class="headline">${escapeHtml(headline)}</p></header>
${links}${body}
</main></body></html>
`
}

module.exports = { htmlPage, section }
