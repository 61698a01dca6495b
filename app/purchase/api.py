"""The purchase-analysis calls of spec 02 section 7: the full analysis, the model analysis and
the current inventory (JSON-LD)."""

from flask import abort, jsonify
from pydantic import Field
from sqlalchemy import select

from app.core.api import Schema, api_call
from app.core.localized import for_reader, option_labels
from app.core.messages import message
from app.extensions import db
from app.purchase import api_bp, comparison
from app.purchase import services as svc
from app.purchase.models import PurchaseAnalysis, PurchaseDynamicField


def _num(value):
    return float(value) if value is not None else None


def full_payload(analysis: PurchaseAnalysis, milage_unit: str | None = None) -> dict:
    """The whole analysis as GET purchase-analyses/{id}/full answers it (spec 02 section 3)."""
    division = analysis.division
    country = division.region.country
    unit = milage_unit or country.milage_unit or "km"
    fields = db.session.scalars(
        select(PurchaseDynamicField).order_by(
            PurchaseDynamicField.ordering, PurchaseDynamicField.id
        )
    ).all()
    sections: dict[str, list] = {}
    for f in fields:
        value = (analysis.inputs or {}).get(str(f.id))
        shown = {"id": f.id, "title": for_reader(f.title_texts, f.title), "type": f.field_type,
                 "value": value}  # fmt: skip
        if f.field_type == "select":  # the option stored as first written, read in a language
            shown["label"] = option_labels(f.choices, f.choices_texts).get(value, value)
        sections.setdefault(for_reader(f.section_texts, f.section), []).append(shown)
    valuation = dict(analysis.valuation or {})
    return {
        "id": analysis.id,
        "identifier": analysis.identifier,
        "status": analysis.status,
        "createdAt": analysis.created_at.isoformat(),
        "createdBy": {"fullname": analysis.created_by.full_name if analysis.created_by else None},
        "priority": analysis.priority.shown_name if analysis.priority else None,
        "division": {"id": division.id, "name": division.name, "milageUnit": unit},
        "data": {
            "summary": {
                "mileage": comparison.mileage_in(analysis.mileage, unit),
                "milageUnit": unit,
                "currency": country.currency,
                "locale": country.locale,
            },
            "inputs": [{"title": t, "fields": f} for t, f in sections.items()],
            "completeRequest": {
                "vehicle": {
                    "brandName": analysis.brand,
                    "modelName": analysis.model,
                    "modelSeries": analysis.model_series,
                    "modelYear": analysis.model_year,
                    "fuelType": analysis.fuel_type,
                    "color": analysis.color,
                    "regno": analysis.regno,
                },
                "analysis": {"modelID": analysis.model_id},
                "valuation": valuation,
            },
        },
        "previousTests": svc.previous_tests(analysis),
        "valuations": [
            {
                "id": v.id,
                "createdAt": v.created_at.isoformat(),
                "priceIn": _num(v.price_in),
                "priceOut": _num(v.price_out),
                "source": v.source,
                "userAndDivision": " · ".join(
                    p
                    for p in (
                        v.user.full_name if v.user else "",
                        v.division.name if v.division else "",
                    )
                    if p
                ),
                "data": v.data or {},
            }
            for v in analysis.valuations
        ],
        "comments": [
            {
                "id": c.id,
                "createdBy": {"fullname": c.created_by.full_name if c.created_by else None},
                "createdAt": c.created_at.isoformat(),
                "modifiedAt": c.modified_at.isoformat(),
                "content": c.content,
                "data": {
                    "images": [
                        {
                            "uuid": i.file.uuid,
                            "name": i.file.name,
                            "url": f"/api/file-objects/{i.file.uuid}/binary",
                        }
                        for i in c.images
                    ]
                },  # fmt: skip
            }
            for c in analysis.comments
        ],
        "previousAnalyses": [
            {
                "id": p.id,
                "identifier": p.identifier,
                "createdAt": p.created_at.isoformat(),
                "status": p.status,
                "valuation": p.valuation or {},
            }
            for p in svc.previous_analyses(analysis)
        ],  # fmt: skip
        "pricePredictions": analysis.price_predictions or [],
        "formattedProperties": analysis.basic or {},
        "latestCalculation": svc.latest_calculation(analysis),
        "item": {"id": analysis.item_id} if analysis.item_id else None,
    }


@api_call(api_bp, "/purchase-analyses/<int:analysis_id>/full")
def purchase_analysis_full(analysis_id: int):
    """The full purchase analysis: vehicle, inputs, valuations, comments, history, calculation."""
    return jsonify(full_payload(svc.analysis_or_404(analysis_id)))


class ModelAnalysisQuery(Schema):
    module: str = Field(pattern="^purchaseAnalysis$")
    # "brand|model" (a query without the separator is malformed); blank parts name no model
    model_id: str = Field(alias="modelID", max_length=150, pattern=r"^[^\u0000]*\|[^\u0000]*$")
    sort_order: str = Field(
        default="soldAt_atSale_asc", alias="sortOrder", pattern="^soldAt_atSale_asc$"
    )
    division: list[str] | str | None = None


def _divisions(raw) -> list[int]:
    """division[] values within the viewer's divisions; none given: all of them. A division
    outside them is a 404 (the caller may not know it exists)."""
    visible = svc.visible_division_ids()
    if raw in (None, "", []):
        return visible
    values = raw if isinstance(raw, list) else [raw]
    ids = []
    for value in values:
        if svc.as_id(value) not in visible:
            abort(404)
        ids.append(int(value))
    return ids


@api_call(
    api_bp,
    "/_preparation-statistics/model-analysis",
    query=ModelAnalysisQuery,
    errors=(404,),  # a division outside the user's
)
def model_analysis(query: ModelAnalysisQuery):
    """The instance's own sold vehicles of one model, oldest sale first, with running averages."""
    svc.require_module()
    key = comparison.parse_model_id(query.model_id) or ("", "")  # blank: a model with no sales
    result = comparison.model_analysis(key, _divisions(query.division))
    if not result["vehicles"]:
        return jsonify({**result, "message": message("NO_MODEL_ANALYSIS_DATA"),
                        "error": "NO_MODEL_ANALYSIS_DATA"})  # fmt: skip
    return jsonify(result)


class InventoryQuery(Schema):
    model_id: str = Field(alias="modelID", min_length=3, max_length=150)
    page: int = Field(default=1, ge=1, le=10_000)
    items_per_page: int = Field(default=10, alias="itemsPerPage", ge=1, le=100)

    model_config = Schema.model_config | {"strict": False}


@api_call(api_bp, "/preparation-items/current-inventory", query=InventoryQuery)
def current_inventory(query: InventoryQuery):
    """Vehicles of the model in stock now, paged, as a JSON-LD (Hydra) collection."""
    svc.require_module()
    key = comparison.parse_model_id(query.model_id)
    members, total = (
        comparison.current_inventory(
            key, svc.visible_division_ids(), query.page, query.items_per_page
        )
        if key
        else ([], 0)
    )
    base = f"/api/preparation-items/current-inventory?modelID={query.model_id}"
    last = max(1, -(-total // query.items_per_page))
    body = {
        "@context": "/api/contexts/PreparationItem",
        "@id": "/api/preparation-items/current-inventory",
        "@type": "hydra:Collection",
        "hydra:member": members,
        "hydra:totalItems": total,
        "hydra:view": {
            "@id": f"{base}&page={query.page}&itemsPerPage={query.items_per_page}",
            "@type": "hydra:PartialCollectionView",
            "hydra:first": f"{base}&page=1&itemsPerPage={query.items_per_page}",
            "hydra:last": f"{base}&page={last}&itemsPerPage={query.items_per_page}",
        },
    }
    if not total:
        body["message"] = message("NO_MATCHING_VEHICLES_COULD_BE_FOUND")
    response = jsonify(body)
    response.mimetype = "application/ld+json"
    return response
