// The single-page port of mongo-admin, as the 2017 study built it: an AngularJS 1.x application (module
// `mongoAdmin`) rendering the server-rendered app's pages in the browser from the JSON API at `/api`.
// This file declares the module and its routes; the other scripts add to it, and index.html loads them in
// order: app.js, api.js, database-list.js, filters.js, layout.js, router.js, view.js, controllers.js.

(function () {
  'use strict'

  angular.module('mongoAdmin', [])
    .config(['$locationProvider', function configureLocation ($locationProvider) {
      // '!' is the default since AngularJS 1.6; said here because the routes below are written for it.
      $locationProvider.hashPrefix('!')
    }])
    // Each page: the path it answers (`:name` is one segment), its template (a <script type="text/ng-template">
    // in index.html), its controller, and `load`, injected with `params` and `search`, which returns a promise
    // of the page's data. The view waits for the data before it compiles the page, as ngRoute's `resolve` does,
    // so a page is rendered once, with its data.
    .constant('ROUTES', Object.freeze([
      {
        path: '/',
        template: 'index.html',
        controller: 'IndexController',
        load: ['databaseList', function loadIndex (databaseList) { return databaseList.load() }]
      },
      {
        path: '/db/:database',
        template: 'database.html',
        controller: 'DatabaseController',
        load: ['api', 'params', function loadDatabase (api, params) { return api.database(params.database) }]
      },
      {
        path: '/db/:database/:collection',
        template: 'collection.html',
        controller: 'CollectionController',
        load: ['api', 'params', 'search', function loadCollection (api, params, search) {
          return api.collection(params.database, params.collection, { skip: search.skip, limit: search.limit })
        }]
      },
      {
        path: '/db/:database/:collection/:document',
        template: 'document.html',
        controller: 'DocumentController',
        load: ['api', 'params', function loadDocument (api, params) {
          return api.document(params.database, params.collection, params.document)
        }]
      }
    ]))
})()
