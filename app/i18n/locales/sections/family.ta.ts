import type en from "./family.en";

const family: typeof en = {};
export default family;
