"""The office's pages over the other domains: the survey map and dashboard, the notice
desk, the survey certification, running the rules and drafting notices, review of
inspections, and assigning work."""


def init_app(app, api) -> None:
    from server.office import api as survey_api
    from server.office.pages import assign, cctv, certify, desk, filters, owner_replies, plumbers, review, rules, survey

    filters.init_app(app)
    survey_api.register(api, app)
    survey.init_app(app)
    desk.init_app(app)
    certify.init_app(app)
    rules.init_app(app)
    review.init_app(app)
    owner_replies.init_app(app)
    cctv.init_app(app)
    plumbers.init_app(app)
    assign.init_app(app)
