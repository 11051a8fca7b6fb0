'use strict'

// The `browser` part of a workload: what `nodebench browser` loads in Chromium. The front ends of the app
// (each a way of showing the same pages: the study's server-rendered pages and its single-page port), the
// pages by name, and a hook that finds values the pages' paths use:
//
//   browser: {
//     frontEnds: {
//       'server-rendered': { url: '{path}' },
//       'single-page': { url: '/spa/#!{path}', ready: 'document.body.dataset.ready === "true"' }
//     },
//     pages: { home: '/', collection: '/db/nodebench/users', document: '/db/nodebench/users/{documentId}' },
//     defaultPages: ['home', 'collection'],       // optional: what a run without --pages loads (default all)
//     async setup ({ base, env, log, values }) { return { documentId } }   // optional, once the app answers
//   }
//
// `{path}` in a front end's url is the page's path; `ready` (optional) is a JavaScript expression that is
// true once the front end has shown the page's data (a single-page app fires `load` before it has).

const FRONT_END_KEYS = Object.freeze(['url', 'ready'])
const BROWSER_KEYS = Object.freeze(['frontEnds', 'pages', 'defaultPages', 'setup'])
const NAME = /^[a-z0-9][a-z0-9-]*$/

function isPlainObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Checks `browser` (the workload's key); `fail(message)` throws the workload's coded error. */
function checkBrowser (browser, { fail, hook, describe }) {
  if (browser === undefined) return null
  const where = (text) => fail(`browser: ${text}`)
  if (!isPlainObject(browser)) where(`expected an object with frontEnds and pages; received ${describe(browser)}`)
  for (const key of Object.keys(browser)) {
    if (!BROWSER_KEYS.includes(key)) where(`unknown key '${key}'; expected one of ${BROWSER_KEYS.join(', ')}`)
  }
  if (!isPlainObject(browser.frontEnds) || Object.keys(browser.frontEnds).length === 0) {
    where(`frontEnds must be an object of named front ends; received ${describe(browser.frontEnds)}`)
  }
  const frontEnds = {}
  for (const [name, frontEnd] of Object.entries(browser.frontEnds)) {
    if (!NAME.test(name)) where(`front end name '${name}' must be lower-case letters, digits and dashes`)
    if (!isPlainObject(frontEnd)) where(`frontEnds.${name} must be an object with url; received ${describe(frontEnd)}`)
    for (const key of Object.keys(frontEnd)) {
      if (!FRONT_END_KEYS.includes(key)) where(`frontEnds.${name}: unknown key '${key}'; expected one of ${FRONT_END_KEYS.join(', ')}`)
    }
    const url = frontEnd.url
    if (typeof url !== 'string' || !(url.startsWith('/') || url.startsWith('{path}')) || !url.includes('{path}')) {
      where(`frontEnds.${name}.url must be {path}, or a path starting with '/' that holds it; received ${describe(url)}`)
    }
    if (frontEnd.ready !== undefined && (typeof frontEnd.ready !== 'string' || frontEnd.ready.trim() === '')) {
      where(`frontEnds.${name}.ready must be a JavaScript expression; received ${describe(frontEnd.ready)}`)
    }
    frontEnds[name] = Object.freeze({ name, url: frontEnd.url, ready: frontEnd.ready ?? null })
  }
  if (!isPlainObject(browser.pages) || Object.keys(browser.pages).length === 0) {
    where(`pages must be an object of named paths; received ${describe(browser.pages)}`)
  }
  for (const [name, page] of Object.entries(browser.pages)) {
    if (!NAME.test(name)) where(`page name '${name}' must be lower-case letters, digits and dashes`)
    if (typeof page !== 'string' || !page.startsWith('/')) where(`pages.${name} must be a path starting with '/'; received ${describe(page)}`)
  }
  const names = Object.keys(browser.pages)
  const defaultPages = browser.defaultPages ?? names
  if (!Array.isArray(defaultPages) || defaultPages.length === 0 || defaultPages.some((page) => !names.includes(page))) {
    where(`defaultPages must be a list of the pages (${names.join(', ')}); received ${describe(browser.defaultPages)}`)
  }
  return Object.freeze({
    frontEnds: Object.freeze(frontEnds),
    pages: Object.freeze({ ...browser.pages }),
    defaultPages: Object.freeze([...defaultPages]),
    setup: hook('browser: setup', browser.setup)
  })
}

module.exports = { checkBrowser }
