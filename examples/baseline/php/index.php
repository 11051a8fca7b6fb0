<?php
// The study's minimal PHP page (Paliwal, "Performance investigation of Node.js"), served by Apache httpd with
// mod_php (prefork); node-server.js beside it answers the same bytes.
echo "Hello World";
