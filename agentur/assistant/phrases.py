"""Fixed sentences the runtime says itself, in every language an assistant may speak.

They are constants, never built from definition content: the pre-flight's below-threshold
sentence in particular must never name a flow, which a test checks in every language.
"""

from __future__ import annotations

PHRASES: dict[str, dict[str, str]] = {
    "preflight_low": {
        "en": "I'm looking at your question to find the best way to help.",
        "de": "Ich sehe mir Ihre Frage an, um den besten Weg zu finden, Ihnen zu helfen.",
        "fr": "J'examine votre question pour trouver la meilleure façon de vous aider.",
        "it": "Sto esaminando la sua domanda per trovare il modo migliore di aiutarla.",
        "es": "Estoy revisando su pregunta para encontrar la mejor manera de ayudarle.",
    },
    # Used instead of `preflight_low` when an assistant has a flow named like one of its words.
    "preflight_low_alternate": {
        "en": "One moment, please.",
        "de": "Einen Moment bitte.",
        "fr": "Un instant, s'il vous plaît.",
        "it": "Un momento, per favore.",
        "es": "Un momento, por favor.",
    },
    "thinking_classify": {
        "en": "Understanding your question…",
        "de": "Ich verstehe Ihre Frage…",
        "fr": "Je comprends votre question…",
        "it": "Sto capendo la sua domanda…",
        "es": "Entendiendo su pregunta…",
    },
    "thinking_search": {
        "en": "Searching our documents…",
        "de": "Ich durchsuche unsere Dokumente…",
        "fr": "Je cherche dans nos documents…",
        "it": "Sto cercando nei nostri documenti…",
        "es": "Buscando en nuestros documentos…",
    },
    "thinking_read": {
        "en": "Reading a relevant passage…",
        "de": "Ich lese eine passende Stelle…",
        "fr": "Je lis un passage pertinent…",
        "it": "Sto leggendo un passaggio pertinente…",
        "es": "Leyendo un pasaje relevante…",
    },
    "thinking_answer": {
        "en": "Writing the answer…",
        "de": "Ich formuliere die Antwort…",
        "fr": "Je rédige la réponse…",
        "it": "Sto scrivendo la risposta…",
        "es": "Redactando la respuesta…",
    },
    "thinking_api": {
        "en": "Checking our system…",
        "de": "Ich prüfe unser System…",
        "fr": "Je vérifie notre système…",
        "it": "Sto controllando il nostro sistema…",
        "es": "Consultando nuestro sistema…",
    },
    "escalation_intro": {
        "en": "You can reach {desk} like this:",
        "de": "So erreichen Sie {desk}:",
        "fr": "Vous pouvez joindre {desk} ainsi :",
        "it": "Può contattare {desk} così:",
        "es": "Puede contactar con {desk} así:",
    },
    "no_help_desk": {
        "en": "I'm sorry, no contact options are configured.",
        "de": "Leider sind keine Kontaktmöglichkeiten eingerichtet.",
        "fr": "Désolé, aucune option de contact n'est configurée.",
        "it": "Mi dispiace, non sono configurate opzioni di contatto.",
        "es": "Lo siento, no hay opciones de contacto configuradas.",
    },
    "extractive_label": {
        "en": "Excerpts from our documents that match your question (no generated answer):",
        "de": "Auszüge aus unseren Dokumenten zu Ihrer Frage (keine generierte Antwort):",
        "fr": "Extraits de nos documents correspondant à votre question (sans réponse générée) :",
        "it": "Estratti dai nostri documenti pertinenti alla domanda (nessuna risposta generata):",
        "es": "Extractos de nuestros documentos sobre su pregunta (sin respuesta generada):",
    },
    "nothing_found": {
        "en": "I could not find anything about that. Would you like to contact a person?",
        "de": "Dazu habe ich nichts gefunden. Möchten Sie mit einer Person sprechen?",
        "fr": "Je n'ai rien trouvé à ce sujet. Voulez-vous contacter une personne ?",
        "it": "Non ho trovato nulla in merito. Vuole contattare una persona?",
        "es": "No encontré nada sobre eso. ¿Desea contactar con una persona?",
    },
    # A knowledge answer nothing in the documents supports (never a guess, never a bare no).
    "dont_know": {
        "en": "I don't know: our documents do not answer that. Would you like to contact a person?",
        "de": "Das weiss ich nicht: Unsere Dokumente beantworten diese Frage nicht. Möchten Sie "
        "mit einer Person sprechen?",
        "fr": "Je ne sais pas : nos documents ne répondent pas à cette question. Voulez-vous "
        "contacter une personne ?",
        "it": "Non lo so: i nostri documenti non rispondono a questa domanda. Vuole contattare "
        "una persona?",
        "es": "No lo sé: nuestros documentos no responden a esa pregunta. ¿Desea contactar con "
        "una persona?",
    },
    "greeting": {
        "en": "Hello! How can I help you?",
        "de": "Hallo! Wie kann ich Ihnen helfen?",
        "fr": "Bonjour ! Comment puis-je vous aider ?",
        "it": "Ciao! Come posso aiutarla?",
        "es": "¡Hola! ¿En qué puedo ayudarle?",
    },
    "email_unavailable": {
        "en": "E-mail is not available at the moment; nothing was sent. Please use another option.",
        "de": "E-Mail ist im Moment nicht verfügbar; es wurde nichts gesendet. "
        "Bitte wählen Sie eine andere Möglichkeit.",
        "fr": "L'e-mail n'est pas disponible pour le moment ; rien n'a été envoyé. "
        "Veuillez choisir une autre option.",
        "it": "L'e-mail non è disponibile al momento; non è stato inviato nulla. "
        "Scelga un'altra opzione.",
        "es": "El correo no está disponible en este momento; no se envió nada. Elija otra opción.",
    },
    # Said before a FAQ answer that exists only in another language than the visitor's.
    "faq_other_language": {
        "en": "This answer is only available in {name}:",
        "de": "Diese Antwort gibt es nur auf {name}:",
        "fr": "Cette réponse n'existe qu'en {name} :",
        "it": "Questa risposta è disponibile solo in {name}:",
        "es": "Esta respuesta solo está disponible en {name}:",
    },
    "email_sent": {
        "en": "Your message was handed to our mail server for {desk}.",
        "de": "Ihre Nachricht wurde an unseren Mailserver für {desk} übergeben.",
        "fr": "Votre message a été remis à notre serveur de messagerie pour {desk}.",
        "it": "Il suo messaggio è stato consegnato al nostro server di posta per {desk}.",
        "es": "Su mensaje se entregó a nuestro servidor de correo para {desk}.",
    },
}

# Each language's name in each language, for sentences such as `faq_other_language`.
LANGUAGE_NAMES: dict[str, dict[str, str]] = {
    "en": {"en": "English", "de": "German", "fr": "French", "it": "Italian", "es": "Spanish"},
    "de": {
        "en": "Englisch",
        "de": "Deutsch",
        "fr": "Französisch",
        "it": "Italienisch",
        "es": "Spanisch",
    },
    "fr": {"en": "anglais", "de": "allemand", "fr": "français", "it": "italien", "es": "espagnol"},
    "it": {"en": "inglese", "de": "tedesco", "fr": "francese", "it": "italiano", "es": "spagnolo"},
    "es": {"en": "inglés", "de": "alemán", "fr": "francés", "it": "italiano", "es": "español"},
}


def language_name(language: str, in_language: str) -> str:
    names = LANGUAGE_NAMES.get(in_language, LANGUAGE_NAMES["en"])
    return names.get(language, language)


def phrase(key: str, language: str, **values: str) -> str:
    table = PHRASES[key]
    return table.get(language, table["en"]).format(**values)


def preflight_low_sentence(language: str, flow_names: list[str]) -> str:
    """The fixed below-threshold sentence, guaranteed not to name any of the flows: a flow
    called e.g. "help" would otherwise appear in "…the best way to help"."""
    from agentur.assistant.text_tokens import contains_phrase, words

    for key in ("preflight_low", "preflight_low_alternate"):
        sentence = phrase(key, language)
        sentence_words = words(sentence)
        if not any(contains_phrase(sentence_words, name) for name in flow_names):
            return sentence
    return "…"
