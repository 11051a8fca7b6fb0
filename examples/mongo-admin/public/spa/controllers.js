// One controller per page, as the study's port had them: each gets its route's data (`data`, loaded by the
// view before the page is compiled), puts it on the page's scope as `page`, and tells the frame what to show.
// Adding and deleting documents call the API, then load the page again (or go to the collection), as the
// server-rendered forms do with their redirects.

(function () {
  'use strict'

  const encode = encodeURIComponent

  function collectionHref (database, collection) {
    return '#!/db/' + encode(database) + '/' + encode(collection)
  }

  angular.module('mongoAdmin')
    .controller('IndexController', ['data', 'layout', function IndexController (data, layout) {
      layout.show({ title: 'Databases' })
      this.databases = data.databases
    }])

    .controller('DatabaseController', ['data', 'layout', function DatabaseController (data, layout) {
      layout.show({ title: data.database, database: data.database })
      this.database = data.database
      this.stats = data.stats
      this.collections = data.collections
    }])

    .controller('CollectionController', [
      '$scope', 'api', 'data', 'layout', 'readiness', 'RELOAD_PAGE',
      function CollectionController ($scope, api, data, layout, readiness, RELOAD_PAGE) {
        const { database, collection, documents, count, skip, limit } = data
        const page = this
        layout.show({ title: database + '.' + collection, database, collection })
        page.href = collectionHref(database, collection)
        page.count = count
        page.limit = limit
        page.first = documents.length ? skip + 1 : 0
        page.last = skip + documents.length
        page.previousSkip = skip > 0 ? Math.max(0, skip - limit) : null
        page.nextSkip = skip + documents.length < count ? skip + limit : null
        // The table's columns are `_id`, then every other top-level field of the page's documents in the order
        // they first appear (lib/controllers/html.js, columnsOf).
        page.fields = fieldsOf(documents)
        page.rows = documents.map((document) => ({ id: String(document._id), document }))
        page.newDocument = '{ "username": "" }'
        page.actionError = null

        page.add = function add () {
          let document
          try {
            document = JSON.parse(page.newDocument)
          } catch (error) {
            page.actionError = `The new document is not valid JSON (${error.message}); expected e.g. {"username": "ada"}`
            return
          }
          act(api.addDocument(database, collection, document))
        }

        page.remove = function remove (row) {
          act(api.deleteDocument(database, collection, row.id))
        }

        // Until the page shows the change, it is not ready; if the API refused, it says why and is ready again.
        function act (request) {
          readiness.loading()
          request.then(function reload () {
            $scope.$emit(RELOAD_PAGE)
          }, function refused (error) {
            page.actionError = error.message
            readiness.rendered()
          })
        }
      }
    ])

    .controller('DocumentController', [
      '$location', 'api', 'data', 'layout', 'readiness', 'documentTextFilter',
      function DocumentController ($location, api, data, layout, readiness, documentTextFilter) {
        const { database, collection, document } = data
        const id = String(document._id)
        const page = this
        layout.show({ title: id, database, collection, document: id })
        page.collection = collection
        page.collectionHref = collectionHref(database, collection)
        page.text = documentTextFilter(document)
        page.actionError = null

        page.remove = function remove () {
          readiness.loading()
          api.deleteDocument(database, collection, id).then(function backToCollection () {
            $location.url(page.collectionHref.slice('#!'.length))
          }, function refused (error) {
            page.actionError = error.message
            readiness.rendered()
          })
        }
      }
    ])

    // Not one of the study's pages: what the view shows when no route answers or the API refused.
    .controller('ErrorController', ['error', 'layout', function ErrorController (error, layout) {
      layout.show({ title: error && error.status ? 'Error ' + error.status : 'Error' })
      this.message = error && error.message ? error.message : String(error)
    }])

  function fieldsOf (documents) {
    const fields = new Set()
    for (const document of documents) {
      for (const key of Object.keys(document)) if (key !== '_id') fields.add(key)
    }
    return Array.from(fields)
  }
})()
