/** A centre's follow-up worklist (decision 0114). */
const worklist = {};
export default worklist;
