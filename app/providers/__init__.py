"""Data providers (admin/general/providers): where vehicle data by registration number or VIN,
and valuations, come from. One interface (`services.look_up`) over a generic HTTP JSON adapter."""
