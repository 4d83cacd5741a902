"""foundation: accounts, workspace, workflows

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import agentur.storage.models.base

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # The knowledge store keeps embeddings in pgvector columns.
        op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "mandates",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mandates")),
        sa.UniqueConstraint("name", name=op.f("uq_mandates_name")),
    )
    op.create_table(
        "users",
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("is_platform_admin", sa.Boolean(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
    )
    op.create_table(
        "api_keys",
        sa.Column("lookup_id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column(
            "expires_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "revoked_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "last_used_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=True
        ),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_api_keys_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_api_keys_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("lookup_id", name=op.f("uq_api_keys_lookup_id")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_keys_mandate_id"), ["mandate_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_api_keys_user_id"), ["user_id"], unique=False)

    op.create_table(
        "feature_instances",
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("feature_code", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_feature_instances_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feature_instances")),
    )
    with op.batch_alter_table("feature_instances", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_feature_instances_mandate_id"), ["mandate_id"], unique=False
        )

    op.create_table(
        "folders",
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=False),
        sa.Column("parent_id", sa.String(length=36), nullable=True),
        sa.Column("parent_key", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_folders_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_folders_owner_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["folders.id"],
            name=op.f("fk_folders_parent_id_folders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_folders")),
        sa.UniqueConstraint(
            "mandate_id",
            "owner_id",
            "parent_key",
            "name",
            name=op.f("uq_folders_mandate_id_owner_id_parent_key_name"),
        ),
    )
    with op.batch_alter_table("folders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_folders_mandate_id"), ["mandate_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_folders_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_folders_parent_id"), ["parent_id"], unique=False)

    op.create_table(
        "memberships",
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_memberships_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_memberships_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memberships")),
        sa.UniqueConstraint(
            "user_id", "mandate_id", name=op.f("uq_memberships_user_id_mandate_id")
        ),
    )
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_memberships_mandate_id"), ["mandate_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_memberships_user_id"), ["user_id"], unique=False)

    op.create_table(
        "files",
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=False),
        sa.Column("folder_id", sa.String(length=36), nullable=True),
        sa.Column("folder_key", sa.String(length=36), nullable=False),
        sa.Column("feature_instance_id", sa.String(length=36), nullable=True),
        sa.Column("name", sa.String(length=1024), nullable=False),
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.Column("neutralize", sa.Boolean(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("mime_type", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["feature_instance_id"],
            ["feature_instances.id"],
            name=op.f("fk_files_feature_instance_id_feature_instances"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["folder_id"],
            ["folders.id"],
            name=op.f("fk_files_folder_id_folders"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_files_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_files_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files")),
        sa.UniqueConstraint(
            "mandate_id",
            "owner_id",
            "folder_key",
            "name",
            name=op.f("uq_files_mandate_id_owner_id_folder_key_name"),
        ),
    )
    with op.batch_alter_table("files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_folder_id"), ["folder_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_files_mandate_id"), ["mandate_id"], unique=False)
        batch_op.create_index("ix_files_mandate_scope", ["mandate_id", "scope"], unique=False)
        batch_op.create_index(batch_op.f("ix_files_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_files_sha256"), ["sha256"], unique=False)

    op.create_table(
        "workflows",
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=False),
        sa.Column("feature_instance_id", sa.String(length=36), nullable=True),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["feature_instance_id"],
            ["feature_instances.id"],
            name=op.f("fk_workflows_feature_instance_id_feature_instances"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_workflows_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f("fk_workflows_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workflows")),
    )
    with op.batch_alter_table("workflows", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_workflows_mandate_id"), ["mandate_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_workflows_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "file_tags",
        sa.Column("file_id", sa.String(length=36), nullable=False),
        sa.Column("tag", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["file_id"], ["files.id"], name=op.f("fk_file_tags_file_id_files"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("file_id", "tag", name=op.f("pk_file_tags")),
    )
    with op.batch_alter_table("file_tags", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_file_tags_tag"), ["tag"], unique=False)

    op.create_table(
        "workflow_messages",
        sa.Column("workflow_id", sa.String(length=36), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column(
            "created_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "updated_at", agentur.storage.models.base.UtcDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["workflow_id"],
            ["workflows.id"],
            name=op.f("fk_workflow_messages_workflow_id_workflows"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workflow_messages")),
        sa.UniqueConstraint(
            "workflow_id", "sequence", name=op.f("uq_workflow_messages_workflow_id_sequence")
        ),
    )
    with op.batch_alter_table("workflow_messages", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_workflow_messages_workflow_id"), ["workflow_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("workflow_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_workflow_messages_workflow_id"))

    op.drop_table("workflow_messages")
    with op.batch_alter_table("file_tags", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_file_tags_tag"))

    op.drop_table("file_tags")
    with op.batch_alter_table("workflows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_workflows_owner_id"))
        batch_op.drop_index(batch_op.f("ix_workflows_mandate_id"))

    op.drop_table("workflows")
    with op.batch_alter_table("files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_sha256"))
        batch_op.drop_index(batch_op.f("ix_files_owner_id"))
        batch_op.drop_index("ix_files_mandate_scope")
        batch_op.drop_index(batch_op.f("ix_files_mandate_id"))
        batch_op.drop_index(batch_op.f("ix_files_folder_id"))

    op.drop_table("files")
    with op.batch_alter_table("memberships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memberships_user_id"))
        batch_op.drop_index(batch_op.f("ix_memberships_mandate_id"))

    op.drop_table("memberships")
    with op.batch_alter_table("folders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_folders_parent_id"))
        batch_op.drop_index(batch_op.f("ix_folders_owner_id"))
        batch_op.drop_index(batch_op.f("ix_folders_mandate_id"))

    op.drop_table("folders")
    with op.batch_alter_table("feature_instances", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_feature_instances_mandate_id"))

    op.drop_table("feature_instances")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_keys_user_id"))
        batch_op.drop_index(batch_op.f("ix_api_keys_mandate_id"))

    op.drop_table("api_keys")
    op.drop_table("users")
    op.drop_table("mandates")
