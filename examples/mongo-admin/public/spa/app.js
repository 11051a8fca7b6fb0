// The single-page port of mongo-admin: the same pages as the server-rendered app, built in the browser
// from the JSON API (`/api/...`), routed by the URL's hash (`#/db/<database>/<collection>/<document>`).
// It exists so the study's browser comparison (load time, heap) can be repeated against the HTML pages.

(function () {
  'use strict'

  const content = document.getElementById('content')
  const title = document.getElementById('title')
  const breadcrumb = document.getElementById('breadcrumb')
  const sidebar = document.getElementById('databases')
  const serverRendered = document.getElementById('server-rendered')

  function el (tag, attributes, ...children) {
    const node = document.createElement(tag)
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === 'onclick' || name === 'onsubmit') node[name] = value
      else node.setAttribute(name, value)
    }
    for (const child of children) node.append(child instanceof Node ? child : String(child))
    return node
  }

  function link (href, text) { return el('a', { href: '#' + href }, text) }
  const enc = encodeURIComponent

  async function api (method, path, body) {
    const response = await fetch('/api' + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined
    })
    const data = await response.json()
    if (!response.ok) throw new Error(data.error || response.status + ' ' + response.statusText)
    return data
  }

  function cell (value) {
    if (value === undefined) return ''
    return typeof value === 'string' ? value : JSON.stringify(value)
  }

  function show (heading, crumbs, ...nodes) {
    title.textContent = heading
    breadcrumb.replaceChildren(link('/', 'Databases'))
    for (const [href, text] of crumbs) breadcrumb.append(' / ', href ? link(href, text) : text)
    content.replaceChildren(...nodes)
    document.title = heading + ' - mongo-admin (single-page)'
  }

  async function viewIndex () {
    const { databases } = await api('GET', '/')
    sidebar.replaceChildren(...databases.map((d) => el('li', {}, link('/db/' + enc(d.name), d.name))))
    if (databases.length === 0) sidebar.replaceChildren(el('li', { class: 'muted' }, 'none'))
    return databases
  }

  async function viewHome () {
    const databases = await viewIndex()
    show('Databases', [], el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, el('th', {}, 'Database'), el('th', {}, 'Collections'))),
      el('tbody', {}, ...databases.map((d) => el('tr', {},
        el('td', {}, link('/db/' + enc(d.name), d.name)),
        el('td', {}, ...d.collections.flatMap((c, i) => [i ? ', ' : '', link('/db/' + enc(d.name) + '/' + enc(c), c)])))))))
  }

  async function viewDatabase (database) {
    const data = await api('GET', '/db/' + enc(database))
    show(database, [['/db/' + enc(database), database]],
      el('dl', { class: 'stats' },
        el('dt', {}, 'Collections'), el('dd', {}, data.stats.collections),
        el('dt', {}, 'Documents'), el('dd', {}, data.stats.documents),
        el('dt', {}, 'Data size'), el('dd', {}, data.stats.dataSize + ' bytes')),
      el('table', { class: 'grid' },
        el('thead', {}, el('tr', {}, el('th', {}, 'Collection'), el('th', {}, 'Documents'))),
        el('tbody', {}, ...data.collections.map((c) => el('tr', {},
          el('td', {}, link('/db/' + enc(database) + '/' + enc(c.name), c.name)), el('td', {}, c.count))))))
  }

  async function viewCollection (database, collection, query) {
    const base = '/db/' + enc(database) + '/' + enc(collection)
    const data = await api('GET', base + (query ? '?' + query : ''))
    const columns = ['_id']
    for (const d of data.documents) for (const key of Object.keys(d)) if (!columns.includes(key)) columns.push(key)
    const textarea = el('textarea', { name: 'document', rows: '6' }, '{ "username": "" }')
    const form = el('form', {
      onsubmit: async (event) => {
        event.preventDefault()
        try {
          await api('POST', base, JSON.parse(textarea.value))
          route()
        } catch (err) { alert(err.message) }
      }
    }, el('label', {}, 'Document (JSON)'), textarea, el('button', { type: 'submit' }, 'Save'))
    show(database + '.' + collection, [['/db/' + enc(database), database], [base, collection]],
      el('p', { class: 'summary' }, `Documents ${data.documents.length ? data.skip + 1 : 0}-${data.skip + data.documents.length} of ${data.count}`),
      el('details', { class: 'add' }, el('summary', {}, 'New document'), form),
      el('table', { class: 'grid documents' },
        el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', {}, c)), el('th', {}))),
        el('tbody', {}, ...data.documents.map((d) => el('tr', {},
          ...columns.map((c) => el('td', {}, c === '_id' ? link(base + '/' + d._id, d._id) : cell(d[c]))),
          el('td', {}, el('button', {
            class: 'danger',
            onclick: async () => { await api('DELETE', base + '/' + d._id); route() }
          }, 'Delete')))))))
  }

  async function viewDocument (database, collection, id) {
    const base = '/db/' + enc(database) + '/' + enc(collection)
    const data = await api('GET', base + '/' + enc(id))
    show(id, [['/db/' + enc(database), database], [base, collection], [null, id]],
      el('pre', { class: 'document' }, el('code', {}, JSON.stringify(data.document, null, 2))),
      el('button', {
        class: 'danger',
        onclick: async () => { await api('DELETE', base + '/' + enc(id)); location.hash = '#' + base }
      }, 'Delete document'))
  }

  async function route () {
    const [path, query] = (location.hash.slice(1) || '/').split('?')
    serverRendered.href = path
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
    try {
      if (parts.length === 0) return await viewHome()
      if (sidebar.querySelector('.muted')) viewIndex().catch(() => {})
      if (parts[0] !== 'db' || parts.length > 4) throw new Error('No page at ' + path)
      if (parts.length === 2) return await viewDatabase(parts[1])
      if (parts.length === 3) return await viewCollection(parts[1], parts[2], query)
      if (parts.length === 4) return await viewDocument(parts[1], parts[2], parts[3])
      throw new Error('No page at ' + path)
    } catch (err) {
      show('Error', [], el('p', { class: 'error', role: 'alert' }, err.message))
    }
  }

  window.addEventListener('hashchange', route)
  route()
})()
