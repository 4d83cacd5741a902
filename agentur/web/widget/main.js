// Mounts the visitor widget on the host page (called by widget.js with the script tag's data).

import { Chat } from "./chat.js";
import { buildPanel } from "./panel.js";
import { chooseLanguage, translator } from "./texts.js";

export function mount(config) {
  const browserLanguages = navigator.languages?.length ? navigator.languages : [navigator.language];
  const language = chooseLanguage(config.language, browserLanguages);
  const t = translator(language);
  const chat = new Chat(config, language, t);
  const view = buildPanel({
    title: config.title || t("title"),
    language,
    stylesheet: new URL("widget.css", config.modules).href,
    t,
    onOpen: () => chat.restore(),
    onSubmit: (text) => chat.send(text),
  });
  chat.attach(view);
  return view;
}
