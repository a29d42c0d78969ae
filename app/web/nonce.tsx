import { createContext, useContext } from "react";

/** The per-request CSP nonce (empty in the browser, where scripts already ran). */
export const NonceContext = createContext("");
export const useNonce = () => useContext(NonceContext);
