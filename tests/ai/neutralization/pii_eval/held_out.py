"""Held-out part: written before the recognizers, never used to tune them."""

from __future__ import annotations

from tests.ai.neutralization.pii_eval import expand

PERSONS = [
    "[[PERSON:Verena Odermatt]]",
    "[[PERSON:Hansruedi Tschopp]]",
    "[[PERSON:Corina Casanova]]",
    "[[PERSON:Gian Andrea Caflisch]]",
    "[[PERSON:Nicole Rochat]]",
    "[[PERSON:Yannick Berset]]",
    "[[PERSON:Francesca Pedrazzini]]",
    "[[PERSON:Matteo Bernasconi]]",
    "[[PERSON:Stefan Lüthi]]",
    "[[PERSON:Barbara Imhof-Zurbriggen]]",
    "[[PERSON:Oliver Kälin]]",
    "[[PERSON:Priska Stucki]]",
    "[[PERSON:Martin Zurbuchen]]",
    "[[PERSON:Aline Cuendet]]",
    "[[PERSON:Sebastian Vogt]]",
    "[[PERSON:Manuela Büchel]]",
    "[[PERSON:David Brown]]",
    "[[PERSON:Kathrin Aebischer]]",
]
GIVEN_FAMILY = [
    ("Verena", "Odermatt"),
    ("Stefan", "Lüthi"),
    ("Nicole", "Rochat"),
    ("Matteo", "Pedrazzini"),
    ("Martin", "Zurbuchen"),
    ("Manuela", "Büchel"),
    ("Sebastian", "Vogt"),
    ("Kathrin", "Aebischer"),
]
FAMILY = [f"[[PERSON:{family}]]" for _, family in GIVEN_FAMILY]
HONORIFIC_DE = ["Herr", "Frau", "Hr.", "Fr.", "Dr.", "Frau Dr."]
HONORIFIC_FR = ["Monsieur", "Madame", "M.", "Mme", "Maître"]
HONORIFIC_IT = ["Signor", "Signora", "Sig.", "Sig.ra", "Dott."]
HONORIFIC_EN = ["Mr", "Mrs", "Ms", "Mr.", "Dr"]
STREETS_DE = [
    "[[STREET:Zürcherstrasse 150]]",
    "[[STREET:Schulhausweg 3]]",
    "[[STREET:Spitalgasse 28]]",
    "[[STREET:Landstrasse 7b]]",
    "[[STREET:Römerstr. 19]]",
    "[[STREET:Am Rain 4]]",
    "[[STREET:Untere Hauptgasse 11]]",
    "[[STREET:Bärenplatz 2]]",
    "[[STREET:Pilatusstrasse 33a]]",
    "[[STREET:Aeulestrasse 5]]",
]
STREETS_FR = [
    "[[STREET:Rue de Lausanne 64]]",
    "[[STREET:Chemin du Pré-Fleuri 8]]",
    "[[STREET:Avenue de Rumine 20]]",
    "[[STREET:Route de Berne 112]]",
    "[[STREET:5 place du Marché]]",
    "[[STREET:Boulevard Carl-Vogt 47]]",
]
STREETS_IT = [
    "[[STREET:Via Nassa 9]]",
    "[[STREET:Via della Posta 14]]",
    "[[STREET:Viale Stazione 3a]]",
    "[[STREET:Piazza Grande 6]]",
    "[[STREET:Via Ciseri 21]]",
]
STREETS_EN = ["[[STREET:14 Elm Street]]", "[[STREET:27 Harbour Road]]", "[[STREET:3 Park Lane]]"]
PLACES_CH = [
    "[[LOCALITY:3011 Bern]]",
    "[[LOCALITY:6004 Luzern]]",
    "[[LOCALITY:8304 Wallisellen]]",
    "[[LOCALITY:3920 Zermatt]]",
    "[[LOCALITY:7260 Davos Dorf]]",
    "[[LOCALITY:4500 Solothurn]]",
    "[[LOCALITY:8200 Schaffhausen]]",
    "[[LOCALITY:5400 Baden]]",
    "[[LOCALITY:9494 Schaan]]",
    "[[LOCALITY:9490 Vaduz]]",
    "[[LOCALITY:3780 Gstaad]]",
    "[[LOCALITY:CH-8645 Jona]]",
]
PLACES_FR = [
    "[[LOCALITY:1201 Genève]]",
    "[[LOCALITY:1950 Sion]]",
    "[[LOCALITY:2000 Neuchâtel]]",
    "[[LOCALITY:1820 Montreux]]",
    "[[LOCALITY:1400 Yverdon-les-Bains]]",
    "[[LOCALITY:69003 Lyon]]",
]
PLACES_IT = [
    "[[LOCALITY:6900 Lugano]]",
    "[[LOCALITY:6600 Locarno]]",
    "[[LOCALITY:6850 Mendrisio]]",
    "[[LOCALITY:22100 Como]]",
]
PLACES_ABROAD = [
    "[[LOCALITY:79539 Lörrach]]",
    "[[LOCALITY:6020 Innsbruck]]",
    "[[LOCALITY:D-78462 Konstanz]]",
    "[[LOCALITY:A-6900 Bregenz]]",
]
DATES_DE = [
    "[[BIRTHDATE:02.09.1958]]",
    "[[BIRTHDATE:17. Januar 1983]]",
    "[[BIRTHDATE:5.7.2001]]",
    "[[BIRTHDATE:30. Oktober 1947]]",
]
DATES_FR = [
    "[[BIRTHDATE:9 décembre 1966]]",
    "[[BIRTHDATE:21.04.1992]]",
    "[[BIRTHDATE:1er mars 1975]]",
]
DATES_IT = ["[[BIRTHDATE:12 settembre 1980]]", "[[BIRTHDATE:08/11/1973]]"]
DATES_EN = ["[[BIRTHDATE:March 4, 1990]]", "[[BIRTHDATE:11 July 1964]]", "[[BIRTHDATE:1977-12-24]]"]

FILLERS = {
    "P": PERSONS,
    "F": FAMILY,
    "HD": HONORIFIC_DE,
    "HF": HONORIFIC_FR,
    "HI": HONORIFIC_IT,
    "HE": HONORIFIC_EN,
    "SD": STREETS_DE,
    "SF": STREETS_FR,
    "SI": STREETS_IT,
    "SE": STREETS_EN,
    "LC": PLACES_CH,
    "LF": PLACES_FR,
    "LI": PLACES_IT,
    "LA": PLACES_ABROAD,
    "DD": DATES_DE,
    "DF": DATES_FR,
    "DI": DATES_IT,
    "DE": DATES_EN,
}

TEMPLATES = [
    "Grüezi mitenand, hier schreibt {P} wegen der offenen Mahnung.",
    "Wir haben {HD} {F} bereits zweimal gemahnt.",
    "Lieferadresse bitte ändern auf {SD}, {LC}.",
    "Die Patientin {P}, geboren {DD}, wurde nach Hause entlassen.",
    "Absender: {P}, {SD}, {LA}",
    "Rückfragen an {HD} {F} unter der bekannten Nummer.",
    "Mein Geburtsdatum ist der {DD}, bitte korrigieren Sie das im Vertrag.",
    "Madame, Monsieur, {P} vous prie de corriger son adresse : {SF}, {LF}.",
    "{HF} {F} est né le {DF} selon le formulaire.",
    "Le colis pour {P} doit partir à l'adresse {SF} à {LF}.",
    "Salve, mi chiamo {P}, abito in {SI} a {LI}.",
    "La signora è nata il {DI} a Bellinzona.",
    "Per favore inviate la fattura a {HI} {F}, {SI}, {LI}.",
    "Hello, this is {P}; please ship to {SE}, {LC}.",
    "{HE} {F} (date of birth {DE}) asked for a copy of the policy.",
    "Account holder: {P}, born {DE}.",
]

HAND_WRITTEN = [
    # hard positives
    "Bitte an [[PERSON:Hans-Peter Müller-Lüdenscheid]] weiterleiten.",
    "Gruss, [[PERSON:Res Wüthrich]]",
    "Ich bin die Tochter von [[PERSON:Elisabeth Schenk]] und schreibe für sie.",
    "Unterschrift: [[PERSON:J. Baumgartner]]",
    "Frau [[PERSON:Tanner]] aus [[LOCALITY:8600 Dübendorf]] hat reklamiert.",
    "Versicherungsnehmer [[PERSON:Marcel Zbinden]], [[STREET:Thunstrasse 8]], "
    "[[LOCALITY:3005 Bern]], geb. [[BIRTHDATE:14.02.1961]].",
    "Rechnungsadresse: [[STREET:Rue des Alpes 15]], [[LOCALITY:1700 Fribourg]]",
    "Il signor [[PERSON:Pietro Lombardi]] vive in [[STREET:Via Motta 2]], "
    "[[LOCALITY:6500 Bellinzona]].",
    "Né le [[BIRTHDATE:3 juin 1985]] à Genève, M. [[PERSON:Olivier Roduit]] réside à "
    "[[STREET:Avenue de France 30]], [[LOCALITY:1950 Sion]].",
    "My late father, [[PERSON:George Miller]], was born on [[BIRTHDATE:4 May 1931]].",
    "Kontakt: Dr. med. [[PERSON:Ruth Ammann]], [[STREET:Spitalstrasse 21]], "
    "[[LOCALITY:6000 Luzern 16]]",
    "Wohnhaft [[STREET:Bahnhofplatz 1]] in [[LOCALITY:9000 St. Gallen]].",
    "Geburtsdatum [[BIRTHDATE:1980-01-31]], Nationalität CH",
    "Mme [[PERSON:Rochat]] a appelé ce matin.",
    "DOB [[BIRTHDATE:07/03/1999]]",
    "Data di nascita: [[BIRTHDATE:19.06.1970]]",
    "Mein Mann [[PERSON:Thomas Brand]] und ich ziehen an den [[STREET:Seeweg 12]], "
    "[[LOCALITY:8820 Wädenswil]].",
    "Sig.ra [[PERSON:Lucia Fontana]] ha disdetto l'abbonamento.",
    "Ms [[PERSON:Olivia Hughes]] will join the call.",
    "Wie mit Frau Dr. [[PERSON:Iris Leuenberger]] besprochen, senden wir die Offerte.",
    # negatives: no personal data in these
    "Die Zürich Versicherung hat den Schaden übernommen.",
    "Die Bahnhofstrasse ist am Samstag für den Verkehr gesperrt.",
    "Unser Laden liegt an der Bahnhofstrasse, gleich neben der Post.",
    "Das neue Samsung Galaxy S24 kostet CHF 899.",
    "Migros Budget und Coop Prix Garantie sind günstiger.",
    "Im Jahr 2023 stieg der Umsatz um 4 Prozent.",
    "Die Sitzung findet am 12.03.2025 im Raum 4 statt.",
    "Zug 2017 nach Bern fährt heute mit Verspätung.",
    "Bestellnummer 8001, Artikel 4051 und 3011 sind vorrätig.",
    "Le Tour de Romandie passe par Lausanne et Fribourg.",
    "La Banca Stato del Cantone Ticino offre un nuovo conto.",
    "Via Bicincitta you can rent bikes in Lugano.",
    "Please update to version 2024 Pro before Monday.",
    "Ricola, Toblerone und Victorinox sind Schweizer Marken.",
    "Swiss Life und Helvetia bieten Vorsorgelösungen an.",
    "Die Rechnung vom 31.01.2024 ist noch offen.",
    "Die Linie 4 fährt Richtung Bahnhof Stadelhofen.",
    "Our office at the Rue du Rhône is closed on holidays.",
    "St. Gallen und Basel sind schöne Städte.",
    "Der Kunde wünscht einen Rückruf am Nachmittag.",
]


def sentences() -> list[str]:
    return expand(TEMPLATES, FILLERS, per_template=6, seed=11) + HAND_WRITTEN
