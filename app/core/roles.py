"""Role names of spec 01 section 6, so that code and demo data spell them once."""

ROLE_ADMIN = "ROLE_ADMIN"
ROLE_MANAGER_ADMIN = "ROLE_MANAGER_ADMIN"
IS_IMPERSONATOR = "IS_IMPERSONATOR"
ROLE_STATISTICS = "ROLE_STATISTICS"
ROLE_USER_PA_STATISTICS = "ROLE_USER_PA_STATISTICS"
ROLE_CCMARKET_STATISTICS = "ROLE_CCMARKET_STATISTICS"
ROLE_CCMARKET_ADMIN = "ROLE_CCMARKET_ADMIN"
ROLE_STATION_USER = "ROLE_STATION_USER"
ROLE_HIDE_MENU_ITEMS = "ROLE_HIDE_MENU_ITEMS"
ROLE_USER_DIVISION_ADMIN = "ROLE_USER_DIVISION_ADMIN"
ROLE_CHAT_BLOCKED = "ROLE_CHAT_BLOCKED"
NO_CHAT_ROLES = (
    ROLE_CHAT_BLOCKED,
    "ROLE_SUPPORT_ADMIN",
    "ROLE_ONBOARDING_ADMIN",
    "ROLE_SALES_ADMIN",
    "ROLE_DEVELOPER_ADMIN",
)

TENANT_READ_SUBJECTS = (
    "CONFIGURATION", "IMPORT", "DATA_PROVIDER", "EVENT_ENGINE", "COUNTRY", "REGION", "DIVISION",
    "SELLER", "ADDRESS", "HOLIDAY", "INFORMATION", "STORAGE", "CALCULATOR", "BOOKING_CALENDAR",
    "LOCATION_CALENDAR", "ACTIONS", "REPORTS", "TAGS", "API_USER", "USER", "GROUP",
    "PURCHASE_ANALYSIS",
)  # fmt: skip
MODULE_READ_SUBJECTS = (
    "STATES", "STATE_BUTTON", "STATION", "STATION_PACKAGE", "STATION_GROUP", "PARKING",
    "KEY_LOCATION", "RULE", "INTERACTION", "WIZARD",
)  # fmt: skip
GLOBAL_READ_SUBJECTS = (
    "INSTANCES", "ENHANCED_PROPERTY", "ENHANCED_CATEGORIES", "SYSTEM_MESSAGES", "USER",
    "SERVICE_SCHEDULE", "TIER_RANKING",
)  # fmt: skip


def tenant_read(subject: str) -> str:
    return f"ROLE_TENANT_{subject}_READ"


def module_read(module: str, subject: str) -> str:
    return f"ROLE_TENANT_{module.upper()}_{subject}_READ"


def global_read(subject: str) -> str:
    return f"ROLE_GLOBAL_{subject}_READ"


def add_vehicle(module: str) -> str:
    return f"ROLE_USER_{module.upper()}_ADD_VEHICLE"


ALL_TENANT_ROLES = (
    [tenant_read(s) for s in TENANT_READ_SUBJECTS]
    + ["ROLE_TENANT_TEMPLATE_ENGINE_ADMIN", "ROLE_TENANT_DELIVERY_LOCATION_ADMIN"]
    + [module_read(m, s) for m in ("begcare", "newcare") for s in MODULE_READ_SUBJECTS]
)
ALL_GLOBAL_ROLES = [global_read(s) for s in GLOBAL_READ_SUBJECTS]

# Roles of the platform itself, held by a person everywhere rather than granted by one company:
# only a global administrator (who holds them) grants them. Every other role is an instance's
# and lives on the person's membership of that instance (app.auth.models.Membership).
PLATFORM_STAFF_ROLES = tuple(r for r in NO_CHAT_ROLES if r != ROLE_CHAT_BLOCKED)
PLATFORM_ROLES = frozenset((*ALL_GLOBAL_ROLES, *PLATFORM_STAFF_ROLES))


def is_platform_role(role: str) -> bool:
    return role in PLATFORM_ROLES
