// How values are written on the pages, matching the server-rendered ones (app.js's nunjucks filters and
// lib/controllers/html.js). The browser gets documents as JSON, in which the API has already turned BSON
// values into JSON ones: an ObjectId into its hexadecimal string, a Date into its ISO string. JSON.stringify
// of what is left writes what relaxed Extended JSON writes for it (numbers, booleans, null, strings, arrays and
// objects of those); what JSON lost, a page here cannot show: a Date is shown as the string it became.

(function () {
  'use strict'

  angular.module('mongoAdmin')
    // nunjucks' `urlencode`, for the parts of a link.
    .filter('urlencode', function urlencodeFilter () {
      return function urlencode (text) { return encodeURIComponent(text) }
    })
    // app.js's `cell`: a field's value in a table cell, strings as they are, anything else as JSON.
    .filter('cell', function cellFilter () {
      return function cell (value) {
        if (value === undefined) return ''
        return typeof value === 'string' ? value : JSON.stringify(value)
      }
    })
    // The document page's text: relaxed Extended JSON, two spaces deep, as the server writes it. A document
    // page is only reached by an ObjectId (lib/documents.js refuses other ids), which the API sent as its
    // hexadecimal string: written back as `{ "$oid": ... }`, in its place among the fields.
    .filter('documentText', function documentTextFilter () {
      return function documentText (document) {
        return JSON.stringify(Object.assign({}, document, { _id: { $oid: document._id } }), null, 2)
      }
    })
})()
