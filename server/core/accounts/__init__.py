"""The people who use Lateral: users and roles, logins, API tokens and browser sessions.

``authenticate`` turns a request into a user (bearer token, HTTP Basic or the session);
``service`` creates users, changes passwords and issues and revokes tokens; ``api``,
``users_api`` and ``pages`` are their routes; ``cli`` the ``users`` commands.
"""


def init_app(app, api) -> None:
    from server.core.accounts import api as auth_api
    from server.core.accounts import cli, pages, users_api

    api.register_blueprint(auth_api.blp)
    api.register_blueprint(users_api.blp)
    pages.init_app(app)
    cli.init_app(app)
