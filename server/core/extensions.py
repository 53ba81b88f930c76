"""Flask extensions, created unbound; ``create_app`` binds them to an app."""

from typing import TYPE_CHECKING

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import MetaData

# Explicit constraint names, so Alembic batch mode on SQLite can alter them and both
# databases end up with the same names.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

db = SQLAlchemy(metadata=MetaData(naming_convention=NAMING))
migrate = Migrate()

if TYPE_CHECKING:
    from sqlalchemy.orm import DeclarativeBase

    class Model(DeclarativeBase):
        """What a type checker sees of ``db.Model``: Flask-SQLAlchemy builds that class at run
        time on the same declarative machinery, but an attribute is no base class to mypy."""

else:
    Model = db.Model
