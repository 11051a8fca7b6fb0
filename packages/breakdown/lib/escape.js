'use strict'

// Text from an app (route templates, function names, file paths, failure messages) put into the pages and
// documents nodebench writes: the breakdown's renderers here and the CLI's reports use these two.

const HTML_ENTITIES = Object.freeze({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })

/** Text safe inside an HTML element or a quoted attribute. */
function escapeHtml (text) {
  return String(text).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c])
}

/**
 * Text that stays itself in Markdown, table cells included: the characters that would start emphasis, code,
 * a link, a tag or a cell are escaped, and a line break (which would end a table row) becomes a space.
 */
function escapeMarkdown (text) {
  return String(text).replace(/[|\\`*_<>[\]]/g, (c) => '\\' + c).replace(/\r?\n/g, ' ')
}

module.exports = { escapeHtml, escapeMarkdown }
