'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')

// What a report says in words: its findings (sentences computed from the figures) and what limits them, as
// lists in HTML, Markdown and a terminal's text. An item is a sentence, or `{ text, kind }`: its kind is its
// class in HTML (`warn`, `failed`, ...), and a failed one leads with "failed" in bold.

function itemOf (item) {
  return typeof item === 'string' ? { text: item, kind: null } : item
}

/** The items as `<ul class="<className>">`; '' for none. */
function htmlList (items, className) {
  if (items.length === 0) return ''
  return `<ul class="${escapeHtml(className)}">\n` + items.map(itemOf).map(({ text, kind }) => {
    const attribute = kind ? ` class="${escapeHtml(kind)}"` : ''
    return `<li${attribute}>${kind === 'failed' ? '<strong>failed</strong>: ' : ''}${escapeHtml(text)}</li>`
  }).join('\n') + '\n</ul>'
}

/** The items as a Markdown list (and a line break after it); '' for none. */
function markdownList (items) {
  if (items.length === 0) return ''
  return items.map(itemOf).map(({ text, kind }) => `- ${kind === 'failed' ? '**failed**: ' : ''}${escapeMarkdown(text)}`).join('\n') + '\n'
}

/** The items as indented lines for a terminal; '' for none. */
function textList (items, indent = '  ') {
  return items.map(itemOf).map(({ text, kind }) => `${indent}${kind === 'failed' ? 'failed: ' : ''}${text}\n`).join('')
}

module.exports = { htmlList, markdownList, textList }
