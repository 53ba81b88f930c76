"""The core every domain stands on, and which imports no domain.

* ``extensions``, ``settings``, ``city`` — the app's database handle, its settings and its city
  (rulebook, measurement CRS, time zone and calendar);
* ``dialects/`` — the one seam where SpatiaLite and PostGIS differ: a module per engine
  behind one selector;
* ``transaction`` — the one transaction of a write request or a CLI command;
* ``models`` — what every model shares (``Stamped``, UTC times);
* ``errors`` — the errors a client can act on;
* ``web/`` — the web kernel: the JSON error shape, the routes' write transaction, request bodies,
  paging, headers, compression, throttling, the shared page layout and static files;
* ``api`` — the flask-smorest API object the domains register their blueprints on;
* ``access/`` — who may call each route, enforced before every request;
* ``accounts/`` — users, logins, tokens and sessions;
* ``audit/`` — the append-only, hash-chained audit trail;
* ``storage/`` — blob stores (a folder, or S3);
* ``jobs`` — when the scheduled jobs last ran.
"""
