# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.integrations``: adapters that let other tools read a table."""
