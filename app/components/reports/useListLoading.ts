import { useLocation, useNavigation } from "@remix-run/react";

/** True while the list on this page reloads (another page, a filter): lists show aria-busy and a loading text. */
export function useListLoading() {
  const navigation = useNavigation();
  const location = useLocation();
  return navigation.state === "loading" && navigation.location.pathname === location.pathname;
}
