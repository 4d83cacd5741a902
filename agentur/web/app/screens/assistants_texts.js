// UI texts of the Assistants screen, one module per language.
import de from "./assistants_texts/de.js";
import en from "./assistants_texts/en.js";
import fr from "./assistants_texts/fr.js";
import it from "./assistants_texts/it.js";

export const texts = { en, de, fr, it };
