"""Views of this area of the market (being built)."""
