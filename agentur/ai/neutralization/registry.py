"""The recognizers every neutralization runs. To add one: write a module in `recognizers/`
exposing a `Recognizer`, and append it here."""

from __future__ import annotations

from agentur.ai.neutralization.recognizers.base import Recognizer
from agentur.ai.neutralization.recognizers.birth_date import BIRTHDATE
from agentur.ai.neutralization.recognizers.email import EMAIL
from agentur.ai.neutralization.recognizers.iban import IBAN
from agentur.ai.neutralization.recognizers.ip_address import IP
from agentur.ai.neutralization.recognizers.payment_card import CARD
from agentur.ai.neutralization.recognizers.person_name import PERSON
from agentur.ai.neutralization.recognizers.phone import PHONE
from agentur.ai.neutralization.recognizers.postcode_locality import LOCALITY_RECOGNIZER
from agentur.ai.neutralization.recognizers.street_address import STREET
from agentur.ai.neutralization.recognizers.swiss_ids import AHV, UID

DEFAULT_RECOGNIZERS: tuple[Recognizer, ...] = (
    EMAIL,
    IBAN,
    AHV,
    UID,
    CARD,
    IP,
    PHONE,
    BIRTHDATE,
    STREET,
    LOCALITY_RECOGNIZER,
    PERSON,
)
