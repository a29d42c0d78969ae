import type en from "./registration.en";

const registration: typeof en = {};
export default registration;
