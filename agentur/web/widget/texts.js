// The widget's own UI texts in de/fr/it/en. What the assistant says comes from the server, in
// the conversation's language.

export const LANGUAGES = ["de", "fr", "it", "en"];

const TEXTS = {
  de: {
    open: "Chat öffnen",
    close: "Chat schliessen",
    title: "Chat",
    greeting: "Hallo! Wie können wir Ihnen helfen?",
    message_label: "Ihre Nachricht",
    send: "Senden",
    you: "Sie",
    assistant: "Assistent",
    thinking: "Denke nach …",
    thinking_done: "Gedankengang anzeigen ({count})",
    sources: "Quellen",
    page: "S. {page}",
    faq_source: "Häufige Frage: {question}",
    choices: "Antwortmöglichkeiten",
    contact: "Kontakt: {desk}",
    open_now: "Jetzt geöffnet",
    closed_now: "Jetzt geschlossen",
    hours: "Öffnungszeiten ({zone})",
    always: "Jederzeit erreichbar",
    email_write: "E-Mail schreiben",
    email_address: "Ihre E-Mail-Adresse (für die Antwort)",
    email_text: "Ihr Anliegen",
    email_send: "E-Mail senden",
    call: "Anrufen",
    error_start: "Der Chat ist im Moment nicht erreichbar. Bitte versuchen Sie es später.",
    error_send: "Die Nachricht konnte nicht gesendet werden. Bitte versuchen Sie es erneut.",
    error_busy: "Sie haben viele Nachrichten geschickt. Bitte warten Sie eine Minute.",
    error_email: "Die E-Mail konnte nicht gesendet werden.",
    new_conversation: "Neues Gespräch",
  },
  fr: {
    open: "Ouvrir le chat",
    close: "Fermer le chat",
    title: "Chat",
    greeting: "Bonjour ! Comment pouvons-nous vous aider ?",
    message_label: "Votre message",
    send: "Envoyer",
    you: "Vous",
    assistant: "Assistant",
    thinking: "Réflexion …",
    thinking_done: "Afficher le raisonnement ({count})",
    sources: "Sources",
    page: "p. {page}",
    faq_source: "Question fréquente : {question}",
    choices: "Réponses possibles",
    contact: "Contact : {desk}",
    open_now: "Ouvert maintenant",
    closed_now: "Fermé maintenant",
    hours: "Heures d'ouverture ({zone})",
    always: "Toujours disponible",
    email_write: "Écrire un e-mail",
    email_address: "Votre adresse e-mail (pour la réponse)",
    email_text: "Votre demande",
    email_send: "Envoyer l'e-mail",
    call: "Appeler",
    error_start: "Le chat n'est pas disponible pour le moment. Veuillez réessayer plus tard.",
    error_send: "Le message n'a pas pu être envoyé. Veuillez réessayer.",
    error_busy: "Vous avez envoyé beaucoup de messages. Veuillez patienter une minute.",
    error_email: "L'e-mail n'a pas pu être envoyé.",
    new_conversation: "Nouvelle conversation",
  },
  it: {
    open: "Apri la chat",
    close: "Chiudi la chat",
    title: "Chat",
    greeting: "Buongiorno! Come possiamo aiutarla?",
    message_label: "Il suo messaggio",
    send: "Invia",
    you: "Lei",
    assistant: "Assistente",
    thinking: "Sto pensando …",
    thinking_done: "Mostra il ragionamento ({count})",
    sources: "Fonti",
    page: "pag. {page}",
    faq_source: "Domanda frequente: {question}",
    choices: "Risposte possibili",
    contact: "Contatto: {desk}",
    open_now: "Aperto ora",
    closed_now: "Chiuso ora",
    hours: "Orari di apertura ({zone})",
    always: "Sempre disponibile",
    email_write: "Scrivere un'e-mail",
    email_address: "Il suo indirizzo e-mail (per la risposta)",
    email_text: "La sua richiesta",
    email_send: "Invia l'e-mail",
    call: "Chiamare",
    error_start: "La chat non è raggiungibile al momento. Riprovi più tardi.",
    error_send: "Non è stato possibile inviare il messaggio. Riprovi.",
    error_busy: "Ha inviato molti messaggi. Attenda un minuto, per favore.",
    error_email: "Non è stato possibile inviare l'e-mail.",
    new_conversation: "Nuova conversazione",
  },
  en: {
    open: "Open chat",
    close: "Close chat",
    title: "Chat",
    greeting: "Hello! How can we help you?",
    message_label: "Your message",
    send: "Send",
    you: "You",
    assistant: "Assistant",
    thinking: "Thinking …",
    thinking_done: "Show thinking ({count})",
    sources: "Sources",
    page: "p. {page}",
    faq_source: "FAQ: {question}",
    choices: "Possible answers",
    contact: "Contact: {desk}",
    open_now: "Open now",
    closed_now: "Closed now",
    hours: "Opening hours ({zone})",
    always: "Always available",
    email_write: "Write an e-mail",
    email_address: "Your e-mail address (for the reply)",
    email_text: "Your request",
    email_send: "Send e-mail",
    call: "Call",
    error_start: "The chat is not reachable right now. Please try again later.",
    error_send: "The message could not be sent. Please try again.",
    error_busy: "You have sent many messages. Please wait a minute.",
    error_email: "The e-mail could not be sent.",
    new_conversation: "New conversation",
  },
};

/** The UI language: `data-language` if it names one we have, else the browser's first. */
export function chooseLanguage(override, browserLanguages) {
  for (const tag of [override, ...browserLanguages]) {
    const primary = String(tag || "").toLowerCase().split("-")[0];
    if (LANGUAGES.includes(primary)) return primary;
  }
  return "en";
}

export { TEXTS as texts }; // for the check that every text exists in all four languages

/** t(key, vars): the text in `language` with {name} placeholders filled (fallback en). */
export function translator(language) {
  const table = TEXTS[language] || TEXTS.en;
  return (key, vars = {}) =>
    (table[key] ?? TEXTS.en[key] ?? key).replace(/\{(\w+)\}/g, (whole, name) =>
      name in vars ? String(vars[name]) : whole,
    );
}
