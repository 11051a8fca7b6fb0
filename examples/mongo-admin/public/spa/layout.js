// The frame around every page, as views/layout.njk draws it: the heading, the breadcrumb, the sidebar's
// active database, the link to the same page server-rendered, and the window's title. `layout` holds what
// the current page set; LayoutController puts it, and the sidebar's database list, on the frame's scope.

(function () {
  'use strict'

  angular.module('mongoAdmin')
    .factory('layout', ['$location', '$window', function layoutFactory ($location, $window) {
      const encode = encodeURIComponent
      const layout = {
        title: 'Loading...',
        /** After "Databases": `{ text, href }`, href null for the last, unlinked part (a document's id). */
        crumbs: [],
        /** The sidebar's highlighted database. */
        database: null,
        serverUrl: '/',
        /** Called by each page once its data is there. */
        show ({ title, database = null, collection = null, document = null }) {
          const crumbs = []
          if (database !== null) crumbs.push({ text: database, href: '#!/db/' + encode(database) })
          if (collection !== null) {
            crumbs.push({ text: collection, href: '#!/db/' + encode(database) + '/' + encode(collection) })
          }
          if (document !== null) crumbs.push({ text: document, href: null })
          layout.title = title
          layout.crumbs = crumbs
          layout.database = database
          // The server answers the same path and query (`?skip=&limit=`) as a page.
          layout.serverUrl = $location.url() || '/'
          $window.document.title = title + ' - mongo-admin (single-page)'
        }
      }
      return layout
    }])
    .controller('LayoutController', ['layout', 'databaseList', function LayoutController (layout, databaseList) {
      this.view = layout
      this.databaseList = databaseList
    }])
})()
